"""The asset vault: content-addressed snapshots of the whole data folder, so nothing the user made is lost.

Every shared lorebook, preset, persona and skill, the global prompt files and settings, and every card
folder (card file, ``卡.json``, prompt files, ``补充设定集.json``, ``创作/``, chats) is captured; only the
vault itself, cache folders, temp files of interrupted writes and lock files are left out.  A file's
bytes are stored once under their sha256 however many snapshots contain them.

    vault = Vault(home)
    vault.snapshot("manual")          # None when nothing changed since the newest snapshot
    vault.restore("20261130-002507")  # the whole data folder as it was (a snapshot is taken first)

The newest :data:`DEFAULT_KEEP` snapshots are kept; objects no kept snapshot refers to are deleted.
Snapshot ids are the (local) time of the snapshot, ``YYYYMMDD-HHMMSS`` (``-2``, ``-3``… when several
fall in one second); snapshots are listed in the order they were taken (each manifest's ``seq``),
whatever the clock said.
"""

from __future__ import annotations

import contextlib
import difflib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import msgspec

from peargarden.errors import BadInput, ConflictError, FormatError, NotFound

from .. import atomic, locking
from ..cards import CHATS_DIR
from ..home import Home
from ._background import (
    DEFAULT_INTERVAL,
    DEFAULT_MAX_DELAY,
    DEFAULT_QUIET,
    BackgroundSnapshots,
    PeriodicSnapshots,
    SnapshotDebouncer,
)
from ._scan import FileSignature, leaf_dirs, parent_dirs, walk_tree
from ._statcache import StatCache
from ._store import (
    FileEntry,
    Manifest,
    ManifestStore,
    ObjectStore,
    snapshot_id_from_key,
    snapshot_sort_key,
)

Clock = Callable[[], datetime]

__all__ = [
    "DEFAULT_KEEP",
    "BackgroundSnapshots",
    "Clock",
    "FileEntry",
    "Manifest",
    "PeriodicSnapshots",
    "RestoreResult",
    "SnapshotDebouncer",
    "SnapshotInfo",
    "Vault",
    "VaultDiff",
    "local_now",
    "start_background_snapshots",
    "utc_now",
]

DEFAULT_KEEP = 50
VAULT_LOCK = "vault"
MAX_REASON_LENGTH = 200
_STORE_THREADS = 8
log = logging.getLogger(__name__)

# Folders the program expects to find; a restore empties them but does not delete them.
_STANDING_DIRS = {
    "cards",
    "library",
    "library/lorebooks",
    "library/presets",
    "library/personas",
    "library/skills",
}


def utc_now() -> datetime:
    return datetime.now(UTC)


def local_now() -> datetime:
    """The default clock: local time with its UTC offset, so ids and times read like the user's clock."""
    return datetime.now().astimezone()


class SnapshotInfo(msgspec.Struct, frozen=True):
    id: str
    time: str
    reason: str
    files: int
    size: int

    def to_json(self) -> dict[str, Any]:
        """The shape ``pear vault list --json`` prints."""
        return {"id": self.id, "time": self.time, "reason": self.reason, "files": self.files}

    @classmethod
    def of(cls, manifest: Manifest) -> SnapshotInfo:
        return cls(
            id=manifest.id,
            time=manifest.time,
            reason=manifest.reason,
            files=len(manifest.files),
            size=manifest.total_size,
        )


class VaultDiff(msgspec.Struct, frozen=True):
    """What changed from snapshot *a* to snapshot *b* (paths relative to the data folder, sorted)."""

    a: str
    b: str
    added: list[str]
    removed: list[str]
    changed: list[str]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


class RestoreResult(msgspec.Struct, frozen=True):
    snapshot_id: str
    path: str | None
    written: list[str]
    removed: list[str]
    unchanged: int
    # The snapshot that holds the state just before the restore (new, or the newest when nothing changed).
    before: str | None


class Vault:
    """Snapshots of one data folder.  Constructing a vault touches nothing on disk."""

    def __init__(
        self,
        home: Home,
        *,
        clock: Clock = local_now,
        keep: int = DEFAULT_KEEP,
        lock_timeout: float = locking.DEFAULT_TIMEOUT,
        racy_window: float = 2.0,
    ) -> None:
        """*racy_window*: files changed less than this many seconds before they were read are hashed
        again next time (on a file system with sub-second times, at most one tick: see ``_statcache``)."""
        if keep < 1:
            raise ValueError("keep must be at least 1")
        self.home = home
        self.clock = clock
        self.keep = keep
        self.lock_timeout = lock_timeout
        self.racy_window_ns = int(racy_window * 1e9)
        self.folder = home.vault_dir
        self.objects = ObjectStore(self.folder / "objects")
        self.manifests = ManifestStore(self.folder / "snapshots")
        self._statcache_path = self.folder / "statcache.json"
        _clear_debris_once(home)

    # ----- reading -------------------------------------------------------------------------------

    def snapshots(self) -> list[SnapshotInfo]:
        """Every readable snapshot, oldest first."""
        return [SnapshotInfo.of(m) for m in self.manifests.load_all(self.manifests.ids())]

    def latest(self) -> SnapshotInfo | None:
        newest = self._latest_readable(self.manifests.ids())
        return SnapshotInfo.of(newest) if newest else None

    def resolve(self, text: str) -> str:
        """A snapshot id from what a person typed: the full id or an unambiguous prefix."""
        wanted = text.strip()
        ids = self.manifests.ids()
        if wanted in ids:
            return wanted
        matches = [i for i in ids if wanted and i.startswith(wanted)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise BadInput(f"快照编号 {wanted} 不唯一：{', '.join(matches[:5])}…")
        raise NotFound(f"没有这个快照：{wanted}", hint="pear vault list 列出全部")

    def manifest(self, snapshot_id: str) -> Manifest:
        return self.manifests.load(self.resolve(snapshot_id))

    def read_file(self, snapshot_id: str, path: str) -> bytes:
        """The bytes one file had in a snapshot."""
        manifest = self.manifest(snapshot_id)
        rel = self.relative_path(path)
        entry = manifest.files.get(rel)
        if entry is None:
            raise NotFound(f"快照 {manifest.id} 里没有文件 {rel}")
        return self.objects.read(entry.sha256)

    def diff(self, a: str, b: str, path: str | None = None) -> VaultDiff:
        """Files added, removed and changed from snapshot *a* to *b*, optionally under *path* only."""
        ma, mb = self.manifest(a), self.manifest(b)
        rel = self.relative_path(path) if path else None

        def inside(p: str) -> bool:
            return rel is None or p == rel or p.startswith(rel + "/")

        fa = {p: e for p, e in ma.files.items() if inside(p)}
        fb = {p: e for p, e in mb.files.items() if inside(p)}
        if rel and not fa and not fb:
            raise NotFound(f"快照 {ma.id} 和 {mb.id} 里都没有 {rel}")
        return VaultDiff(
            a=ma.id,
            b=mb.id,
            added=sorted(p for p in fb if p not in fa),
            removed=sorted(p for p in fa if p not in fb),
            changed=sorted(p for p in fa if p in fb and fa[p] != fb[p]),
        )

    def file_diff(self, a: str, b: str, path: str) -> str:
        """A unified text diff of one file between two snapshots ("" when equal)."""
        ma, mb = self.manifest(a), self.manifest(b)
        rel = self.relative_path(path)
        ea, eb = ma.files.get(rel), mb.files.get(rel)
        if ea is None and eb is None:
            raise NotFound(f"快照 {ma.id} 和 {mb.id} 里都没有文件 {rel}")
        old = self.objects.read(ea.sha256) if ea else b""
        new = self.objects.read(eb.sha256) if eb else b""
        if old == new:
            if ea == eb:
                return ""
            return f"权限不同：{rel} {ea.mode if ea else 0:04o} → {eb.mode if eb else 0:04o}\n"
        old_text, new_text = _as_text(old), _as_text(new)
        if old_text is None or new_text is None:
            return f"二进制文件不同：{rel}\n"
        lines = difflib.unified_diff(
            old_text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=f"{ma.id}/{rel}" if ea else "/dev/null",
            tofile=f"{mb.id}/{rel}" if eb else "/dev/null",
        )
        no_newline = "\n\\ No newline at end of file\n"
        return "".join(line if line.endswith("\n") else line + no_newline for line in lines)

    def relative_path(self, path: str) -> str:
        """A path inside the data folder as the vault names it (POSIX, relative, no ``..``)."""
        text = path.strip().replace("\\", "/")
        candidate = Path(text).expanduser()
        if candidate.is_absolute():
            root = self.home.root
            for base in (root, root.resolve()):
                with contextlib.suppress(ValueError):
                    text = candidate.relative_to(base).as_posix()
                    break
            else:
                with contextlib.suppress(ValueError, OSError):
                    text = candidate.resolve().relative_to(root.resolve()).as_posix()
            if Path(text).is_absolute():
                raise BadInput(f"不在数据文件夹 {root} 里：{path}")
        parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
        if any(p == ".." for p in parts):
            raise BadInput(f"路径不能含 ..：{path}")
        return "/".join(parts)

    # ----- writing -------------------------------------------------------------------------------

    def snapshot(self, reason: str = "manual") -> SnapshotInfo | None:
        """Take a snapshot; ``None`` when the data folder is the same as in the newest snapshot."""
        reason = _clean_reason(reason)
        with self._locked():
            info, _ = self._snapshot_locked(reason)
            self._apply_retention()
        return info

    def restore(self, snapshot_id: str, path: str | None = None) -> RestoreResult:
        """Bring back a whole snapshot, or one file or folder of it.

        The current state is snapshotted first.  A whole or folder restore also removes files that the
        snapshot did not have (inside that folder); a single-file restore touches only that file.
        """
        sid = self.resolve(snapshot_id)
        rel = self.relative_path(path) if path is not None else None
        if rel == "":
            rel = None
        with self._locked():
            manifest = self.manifests.load(sid)
            kind, targets, target_dirs = _targets(manifest, rel)
            missing = [p for p, e in targets.items() if not self.objects.has(e.sha256, e.size)]
            if missing:
                raise FormatError(f"快照 {sid} 缺少 {len(missing)} 个内容对象，无法恢复（例如 {missing[0]}）")
            if kind == "file" and rel is not None:
                self._check_file_target(rel)
            # Retention waits until the restore is done: the pre-restore snapshot must not push out the
            # very snapshot being restored.
            before_info, scan = self._snapshot_locked(f"before restore {sid}")
            current = scan.files
            newest = self.manifests.ids()
            before = before_info.id if before_info else (newest[-1] if newest else None)

            def in_scope(p: str) -> bool:
                return kind == "all" or (kind == "folder" and p.startswith(f"{rel}/")) or p == rel

            removed: list[str] = []
            if kind != "file":
                removed = sorted(p for p in current if in_scope(p) and p not in targets)
                for p in removed:
                    with contextlib.suppress(FileNotFoundError):
                        (self.home.root / p).unlink()
                wanted_dirs = parent_dirs([*targets, *target_dirs]) | set(target_dirs)
                self._remove_dirs(d for d in scan.dirs if in_scope(d) and d not in wanted_dirs)
                for folder in target_dirs:
                    self._make_restored_dir(folder)
            written: list[str] = []
            unchanged = 0
            for p in sorted(targets):
                entry = targets[p]
                now = current.get(p)
                if now == entry:
                    unchanged += 1
                    continue
                target = self.home.root / p
                if now is not None and now.sha256 == entry.sha256:
                    os.chmod(target, entry.mode)
                else:
                    self._write_restored(target, self.objects.read(entry.sha256), entry.mode)
                written.append(p)
            self._apply_retention()
        return RestoreResult(sid, rel, written, removed, unchanged, before)

    def gc(self) -> int:
        """Delete objects that no snapshot refers to; returns how many were deleted."""
        with self._locked():
            return self._collect_garbage()

    # ----- internals -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with locking.locked(self.home, VAULT_LOCK, timeout=self.lock_timeout):
            yield

    def _scan(self, latest: Manifest | None) -> tuple[_Scan, StatCache]:
        """Hash the data folder (reusing remembered hashes) and store every new content object; a
        file that only grew since *latest* (the newest snapshot) is stored as its tail."""
        root = self.home.root
        tree = walk_tree(root)
        signatures = tree.files
        cache = StatCache(self._statcache_path, racy_window_ns=self.racy_window_ns)
        known = self.objects.names()
        entries: dict[str, FileEntry] = {}
        misses: list[str] = []
        for rel in sorted(signatures):
            signature = signatures[rel]
            sha = cache.lookup(rel, signature)
            if sha is not None and sha in known:
                entries[rel] = FileEntry(sha, signature.size, signature.mode)
            else:
                misses.append(rel)

        before = latest.files if latest is not None else {}

        def store(rel: str) -> tuple[str, str, int, os.stat_result, int] | None:
            entry = before.get(rel)
            previous = (entry.sha256, entry.size) if entry is not None else None
            settle = cache.settle_ns(signatures[rel], time.time_ns())
            if settle:  # changed within a tick: read it once the tick is over, so it is remembered
                time.sleep(settle / 1e9)
            reading = time.time_ns()  # what is hashed holds every write made before this
            try:
                return (rel, *self.objects.add_file(root / rel, known, previous), reading)
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                return None  # deleted or replaced while we walked: the next snapshot sees the new state
            except PermissionError as error:
                raise BadInput(f"无法读取，快照中止：{error.strerror}", path=root / rel) from None

        # Each new object is fsynced; several threads let the file system commit those together.
        existed = set(known)
        pool = ThreadPoolExecutor(max_workers=_STORE_THREADS)
        try:
            for stored in pool.map(store, misses):
                if stored is None:
                    continue
                rel, sha, size, seen, reading = stored
                seen_signature = FileSignature.of(seen)
                entries[rel] = FileEntry(sha, size, seen_signature.mode)
                cache.remember(rel, seen_signature, sha, now_ns=reading)
        except BaseException:
            # A failed snapshot leaves nothing behind: stop, then drop the objects it stored.
            pool.shutdown(wait=True, cancel_futures=True)
            self.objects.discard(set(known) - existed)
            raise
        finally:
            pool.shutdown(wait=True)
        entries = {rel: entries[rel] for rel in sorted(entries)}
        cache.keep_only(set(entries))
        leaves = tuple(leaf_dirs(tree.dirs, entries))
        return _Scan(entries, tree.dirs, leaves), cache

    def _snapshot_locked(self, reason: str) -> tuple[SnapshotInfo | None, _Scan]:
        ids = self.manifests.ids()
        latest = self._latest_readable(ids)
        scan, cache = self._scan(latest)
        if latest is not None and latest.files == scan.files and latest.dirs == scan.leaves:
            cache.save()
            return None, scan
        when = self.clock()
        if when.tzinfo is None:
            when = when.astimezone()  # a naive time is local time
        manifest = Manifest(
            id=self._next_id(when, ids),
            time=when.isoformat(timespec="seconds"),
            reason=reason,
            files=scan.files,
            dirs=scan.leaves,
            seq=self.manifests.next_seq(ids),
        )
        self.manifests.save(manifest)
        cache.save()
        return SnapshotInfo.of(manifest), scan

    def _latest_readable(self, ids: list[str]) -> Manifest | None:
        for snapshot_id in reversed(ids):
            found = self.manifests.load_all([snapshot_id])
            if found:
                return found[0]
        return None

    @staticmethod
    def _next_id(when: datetime, ids: list[str]) -> str:
        """The clock's time as an id; ``-2``, ``-3``… when that second has one already (the order is
        each manifest's ``seq``, so an id need not sort after the newest)."""
        base = when.strftime("%Y%m%d-%H%M%S")
        numbers = [number for taken, number in map(snapshot_sort_key, ids) if taken == base]
        return snapshot_id_from_key(base, max(numbers) + 1) if numbers else base

    def _apply_retention(self) -> None:
        ids = self.manifests.ids()
        if len(ids) <= self.keep:
            return
        for old in ids[: len(ids) - self.keep]:
            self.manifests.delete(old)
        atomic.fsync_dir(self.manifests.folder)
        self._collect_garbage()

    def _collect_garbage(self) -> int:
        referenced = self.manifests.references(self.manifests.ids())
        return self.objects.remove_unreferenced(self.objects.referenced(referenced))

    def _check_file_target(self, rel: str) -> None:
        target = self.home.root / rel
        if target.is_dir() and not target.is_symlink():
            raise ConflictError(f"{rel} 现在是一个文件夹，不能用文件覆盖它")
        for parent in PurePosixPath(rel).parents:
            if str(parent) == ".":
                break
            probe = self.home.root / str(parent)
            if probe.exists() and not probe.is_dir():
                raise ConflictError(f"{parent} 现在是一个文件，不能在它下面恢复 {rel}")

    def _write_restored(self, target: Path, data: bytes, mode: int) -> None:
        if target.is_dir() and not target.is_symlink():
            try:
                target.rmdir()  # emptied by the removals above
            except OSError:
                raise ConflictError(f"{target} 是一个不空的文件夹，不能用文件覆盖它") from None
        try:
            atomic.write_bytes(target, data, mode=mode)
        except (NotADirectoryError, FileExistsError):
            raise ConflictError(f"{target} 的上级路径被一个文件占着") from None

    def _remove_dirs(self, folders: Iterable[str]) -> None:
        """Delete folders the snapshot did not have, once empty (one holding a cache folder stays)."""
        # Deepest first, so a parent is tried after its children are gone.
        for folder in sorted(folders, key=lambda d: d.count("/"), reverse=True):
            if folder in _STANDING_DIRS:
                continue
            with contextlib.suppress(OSError):
                (self.home.root / folder).rmdir()

    def _make_restored_dir(self, folder: str) -> None:
        try:
            atomic.ensure_dir(self.home.root / folder)
        except (NotADirectoryError, FileExistsError):
            raise ConflictError(f"{folder} 的位置被一个文件占着") from None


class _Scan(msgspec.Struct, frozen=True):
    files: dict[str, FileEntry]
    dirs: set[str]  # every folder now in the data folder (cache folders and the vault left out)
    leaves: tuple[str, ...]  # the empty ones, as a manifest records them


def _targets(manifest: Manifest, rel: str | None) -> tuple[str, dict[str, FileEntry], list[str]]:
    """What a restore writes: (kind, files, empty folders); kind is "all", "folder" or "file"."""
    if rel is None:
        return "all", dict(manifest.files), list(manifest.dirs)
    if rel in manifest.files:
        return "file", {rel: manifest.files[rel]}, []
    inside = {p: e for p, e in manifest.files.items() if p.startswith(rel + "/")}
    dirs = [d for d in manifest.dirs if d == rel or d.startswith(rel + "/")]
    if not inside and not dirs:
        raise NotFound(f"快照 {manifest.id} 里没有文件或文件夹 {rel}")
    return "folder", inside, dirs


def _clean_reason(reason: str) -> str:
    text = " ".join(reason.split())
    if not text:
        return "manual"
    return text[:MAX_REASON_LENGTH]


def _as_text(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class Debris(msgspec.Struct, frozen=True):
    """What :func:`clear_crash_debris` removed: temp files of writes a crash cut short."""

    files: int
    size: int

    def describe(self) -> str:
        megabytes = self.size / 1024 / 1024
        return f"清理了 {self.files} 个崩溃留下的临时文件，共 {megabytes:.1f} MB（crash leftovers removed）"


# Data folders whose crash leftovers this process has cleared (see _clear_debris_once).
_cleared: set[Path] = set()
_cleared_guard = threading.Lock()


def _clear_debris_once(home: Home) -> None:
    """The first time this process opens *home*'s vault, clear what killed writes left behind (a
    snapshot killed mid-write leaves objects of tens of megabytes): every command that opens the
    vault does, whether or not it said so first (``pear chat``, ``serve``, ``import`` and ``vault``
    say what they removed; the others log it)."""
    root = Path(os.path.abspath(home.root))
    with _cleared_guard:
        if root in _cleared:
            return
        _cleared.add(root)
    try:
        debris = clear_crash_debris(home)
    except OSError as error:
        log.warning("could not clear crash leftovers: %s", error)
        return
    if debris.files:
        log.info("%s", debris.describe())


def clear_crash_debris(home: Home) -> Debris:
    """Remove the temp files crashed writes left in the data folder (their writer's process is gone,
    or they are over an hour old); on start of ``pear chat``, ``pear serve`` and ``pear import``, and
    when a process first opens the vault."""

    with _cleared_guard:
        _cleared.add(Path(os.path.abspath(home.root)))  # the vault, opened next, need not look again
    if not home.root.is_dir():
        return Debris(0, 0)
    sizes: list[int] = []

    def measured(path: Path) -> None:
        with contextlib.suppress(OSError):
            sizes.append(path.lstat().st_size)

    removed = atomic.remove_stale_temp_files(home.root, before_removing=measured)
    for folder in {path.parent for path in removed if path.parent.parent.name == CHATS_DIR}:
        # A chat folder is made for its session file: one holding nothing once its temp file went
        # was a chat a killed import (or first write) never finished.
        with contextlib.suppress(OSError):
            folder.rmdir()  # refused when anything else is in it
    return Debris(len(removed), sum(sizes))


def start_background_snapshots(
    home: Home,
    *,
    clock: Clock | None = None,
    interval: float = DEFAULT_INTERVAL,
    quiet: float = DEFAULT_QUIET,
    max_delay: float = DEFAULT_MAX_DELAY,
    snapshot_on_append: bool = False,
) -> BackgroundSnapshots:
    """For ``pear serve`` / ``pear chat``: snapshot now, every *interval* seconds, and after writes.

    Keep the returned object and call ``stop()`` on shutdown.  Writes through ``workspace.atomic``
    are noticed by themselves; call ``notify_write()`` after writes made any other way (bash tool).
    """
    vault = Vault(home, clock=clock or local_now)
    background = BackgroundSnapshots(
        vault, interval=interval, quiet=quiet, max_delay=max_delay, snapshot_on_append=snapshot_on_append
    )
    return background.start()
