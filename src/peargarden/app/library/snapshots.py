"""The asset vault for the fronts: snapshots of the whole data folder (take, list, compare, restore),
the crash leftovers cleared on start, and the background snapshots of a long-running command.

An operating-system error on the way (a full disk, no permission) is one :class:`PearError` line
naming the file, never a traceback: the CLI and the web show it as they show every error.  The
vault itself (:mod:`peargarden.workspace.vault`) is imported on first use, so that ``pear --help``
does not load it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import msgspec

from peargarden.errors import BadInput, PearError, StorageError, storage_error
from peargarden.workspace.chats import remove_orphan_indexes
from peargarden.workspace.home import Home
from peargarden.workspace.vault import (
    RestoreResult,
    SnapshotInfo,
    Vault,
    VaultDiff,
    clear_crash_debris,
    start_background_snapshots,
)

log = logging.getLogger(__name__)


@contextlib.contextmanager
def disk_errors(home: Home) -> Iterator[None]:
    """An operating-system error as one readable line that names the file (else the data folder)."""
    try:
        yield
    except StorageError as error:
        raise storage_error(error, home.root) or error from None  # read-only or full: its line, exit 5
    except OSError as error:
        converted = storage_error(error, home.root)
        if converted is not None:
            raise converted from None
        raise PearError(f"{error.strerror or error}", path=error.filename or home.root) from None


class SnapshotDiff(msgspec.Struct, frozen=True):
    """Files added, removed and changed between two snapshots; ``text`` is the unified diff of one
    file when the path asked about is a file of either snapshot (None for a folder or everything)."""

    diff: VaultDiff
    path: str | None
    text: str | None


class Snapshots:
    """The vault of one data folder, every call with its disk errors mapped (see :func:`disk_errors`)."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self._vault: Vault = Vault(home)

    def snapshots(self) -> list[SnapshotInfo]:
        """Every snapshot, oldest first."""
        with disk_errors(self.home):
            return self._vault.snapshots()

    def latest(self) -> SnapshotInfo | None:
        with disk_errors(self.home):
            return self._vault.latest()

    def take(self, reason: str) -> SnapshotInfo | None:
        """A snapshot now; None when nothing changed since the newest one."""
        with disk_errors(self.home):
            return self._vault.snapshot(reason)

    def diff(self, a: str, b: str, path: str | None = None) -> SnapshotDiff:
        """What changed from *a* to *b* (under *path* only, when given)."""
        vault = self._vault
        with disk_errors(self.home):
            rel = vault.relative_path(path) if path is not None else None
            text = None
            if rel is not None and (rel in vault.manifest(a).files or rel in vault.manifest(b).files):
                text = vault.file_diff(a, b, rel)
            return SnapshotDiff(vault.diff(a, b, path), rel, text)

    def files(self, snapshot_id: str) -> set[str]:
        """The files a snapshot holds (paths relative to the data folder)."""
        with disk_errors(self.home):
            return set(self._vault.manifest(snapshot_id).files)

    def restore(self, snapshot_id: str, path: str | None = None) -> RestoreResult:
        """Bring back a snapshot (or one file or folder of it); the current state is snapshotted first."""
        with disk_errors(self.home):
            return self._vault.restore(snapshot_id, path)


def clear_leftovers(home: Home) -> str | None:
    """Remove the temp files crashed writes left behind, and the session indexes of chats whose
    session file is gone; what was removed, said for the user (None when nothing was, or when the
    folder could not be read: that is logged, and the start goes on)."""
    try:
        debris = clear_crash_debris(home)
        indexes = remove_orphan_indexes(home.cards_dir)
    except OSError as error:
        log.warning("could not clear crash leftovers: %s", error)
        return None
    said = [debris.describe()] if debris.files else []
    if indexes:
        said.append(f"清理了 {len(indexes)} 个已不在的对话留下的索引（stale chat indexes removed）")
    return "\n".join(said) or None


@contextlib.contextmanager
def background_snapshots(home: Home) -> Iterator[None]:
    """Snapshot the data folder now (before anything of this run can change it), every 10 minutes,
    and after writes; the last writes are snapshotted on the way out.  A vault that cannot start is
    logged and the command runs without it: the vault must never stop a chat."""
    try:
        background = start_background_snapshots(home)
    except Exception as error:
        log.warning("asset vault not running: %s", error)
        yield
        return
    try:
        background.wait_for_startup(timeout=60)
        yield
    finally:
        background.stop()


def undo_point(home: Home, reason: str) -> str:
    """A vault snapshot now, or the newest one when nothing changed since (it holds the state as is)."""
    vault = Vault(home)
    info = vault.snapshot(reason) or vault.latest()
    if info is None:
        raise BadInput("保险库没能留下快照，什么都没有改（vault snapshot failed）")
    return info.id
