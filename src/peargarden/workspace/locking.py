"""Cross-process locks for writers of the data folder (``pear serve``, ``pear chat`` and CLI commands).

Atomic writes already keep every file whole; these locks serialise *read-modify-write* sequences
(a lorebook edited by a tool while the CLI imports into it, two snapshots of the vault at once).

Lock files live in ``vault/locks/``: the vault is the program's own folder, it is never snapshotted,
and a lock file there is not a change to anything the user made.  The files stay after release on
purpose (a waiter must lock the same inode as the holder; deleting them would let two holders in).
Read-only commands never lock: readers rely on atomic renames.  Locking never creates the data
folder; asking for a lock in a data folder that does not exist is an error.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from peargarden.errors import ConflictError, NotFound

from .atomic import ensure_dir, storage_errors
from .home import Home

LOCKS_DIR_NAME = "locks"
DEFAULT_TIMEOUT = 30.0

_SAFE = re.compile(r"[^0-9A-Za-z\u4e00-\u9fff._-]+")

# How often a waiter tries the lock file again while another process holds it.
_POLL_SECONDS = 0.05


class _FileLock:
    """One lock file held with ``flock``: reentrant within a thread; other threads of this process
    wait on the thread lock, other processes on the file.

    Written here rather than taken from a library: the one used before cost every ``pear`` command
    ~8 ms of imports (logging, its own settings and registry) for what is thirty lines on POSIX."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._owner = threading.RLock()  # the thread holding the file, as often as it entered
        self._depth = 0
        self._fd: int | None = None

    def acquire(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        if not self._owner.acquire(timeout=max(timeout, 0.0)):
            return False
        try:
            if self._depth == 0:
                self._fd = self._flocked(deadline)
                if self._fd is None:
                    self._owner.release()
                    return False
            self._depth += 1
            return True
        except BaseException:
            self._owner.release()
            raise

    def _flocked(self, deadline: float) -> int | None:
        """The lock file open and ``flock``ed by us, or None when *deadline* passed first."""
        with storage_errors():  # a read-only data folder: its one line, not "[Errno 30] …"
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        os.close(fd)
                        return None
                    time.sleep(_POLL_SECONDS)
        except BaseException:
            os.close(fd)
            raise

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        self._owner.release()


# One lock object per lock file in this process: flock() on a second descriptor of the same file
# would block its own process, so nested use must go through the same (reentrant) object.
_registry: dict[Path, _FileLock] = {}
_registry_guard = threading.Lock()


def locks_dir(home: Home) -> Path:
    return home.vault_dir / LOCKS_DIR_NAME


def lock_file_for(home: Home, name: str) -> Path:
    """The lock file for *name*: a readable stem plus a short hash, so any name maps to a safe file."""
    stem = _SAFE.sub("_", name).strip("._")[:60] or "lock"
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:10]
    return locks_dir(home) / f"{stem}-{digest}.lock"


def _lock_object(path: Path) -> _FileLock:
    with _registry_guard:
        lock = _registry.get(path)
        if lock is None:
            lock = _FileLock(path)
            _registry[path] = lock
        return lock


@contextmanager
def locked(home: Home, name: str, *, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold the named lock of this data folder for the duration of the ``with`` block.

    Reentrant within a thread; other threads and other processes wait up to *timeout* seconds
    and then get a :class:`ConflictError`.
    """
    if not home.root.is_dir():
        raise NotFound(f"数据文件夹不存在：{home.root}", hint="先运行 pear init")
    path = lock_file_for(home, name)
    ensure_dir(path.parent)
    lock = _lock_object(path)
    if not lock.acquire(timeout):
        raise ConflictError(f"另一个 pear 进程正在写入（{name}），请稍后再试")
    try:
        yield
    finally:
        lock.release()


def path_lock_name(home: Home, path: Path) -> str:
    """The lock name for one file or folder of the data folder (its path relative to the root)."""
    try:
        relative = Path(path).resolve().relative_to(home.root.resolve())
    except ValueError:
        relative = Path(path)
    return "path:" + relative.as_posix()


@contextmanager
def locked_path(home: Home, path: Path, *, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Serialise writers of one file (e.g. a lorebook updated by a tool and by the CLI)."""
    with locked(home, path_lock_name(home, path), timeout=timeout):
        yield
