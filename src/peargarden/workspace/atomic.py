"""Crash-safe file writes: a temp file in the same folder, fsync, rename, fsync the folder.

A reader never sees a half-written file: it sees the old bytes or the new ones.  Once a function here
has returned, the write survives a crash of the process (and, as far as the file system honours
``fsync``, of the machine): the data, the new name and any folder created for it are all flushed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from peargarden.errors import StorageError, storage_error
from peargarden.formats import dumps_json

log = logging.getLogger("peargarden.atomic")

WriteKind = Literal["replace", "append"]
WriteListener = Callable[[Path, WriteKind], None]

# Listeners told after every completed write in this process (the vault's "snapshot after writes").
# Replaced, never mutated in place, so a write iterating over it needs no lock.
_listeners: tuple[WriteListener, ...] = ()
_listeners_guard = threading.Lock()


def add_write_listener(listener: WriteListener) -> None:
    """Call *listener(path, kind)* after each completed write; kind is "replace" or "append"."""
    global _listeners
    with _listeners_guard:
        _listeners = (*_listeners, listener)


def remove_write_listener(listener: WriteListener) -> None:
    global _listeners
    with _listeners_guard:
        remaining = list(_listeners)
        if listener in remaining:
            remaining.remove(listener)
        _listeners = tuple(remaining)


def announce_write(path: Path) -> None:
    """Tell the listeners (the vault) about a write made some other way, e.g. by a bash command."""
    _written(Path(path), "replace")


def _written(path: Path, kind: WriteKind) -> None:
    for listener in _listeners:
        try:
            listener(path, kind)
        except Exception:  # a listener must never turn a finished write into a failure
            log.exception("write listener failed for %s", path)


# Prefix and suffix of the temp files made below; a crash between creating one and renaming it
# leaves it behind, so scanners (the vault) recognise and skip names of this shape.
TEMP_PREFIX = "."
TEMP_SUFFIX = ".tmp"


# The longest piece of the target's name a temp name keeps: with the prefix, the pid and the random
# part the temp name stays well under the 255-byte limit of file names.
_TEMP_NAME_BYTES = 160


def temp_prefix(name: str) -> str:
    """``.<name>.<pid>-``: the writer's pid lets the next start tell a crashed write's temp file
    from one being written now (see :func:`remove_stale_temp_files`)."""
    raw = name.encode("utf-8", "replace")[:_TEMP_NAME_BYTES]
    short = raw.decode("utf-8", "ignore") or "file"
    return f"{TEMP_PREFIX}{short}.{os.getpid()}-"


@contextlib.contextmanager
def storage_errors() -> Iterator[None]:
    """A write that fails because the data folder is read-only or the disk is full raises
    :class:`~peargarden.errors.StorageError` (one line for the person, still an ``OSError``)."""
    try:
        yield
    except OSError as error:
        if isinstance(error, StorageError):
            raise
        converted = storage_error(error, _data_folder(error.filename))
        if converted is None:
            raise
        raise converted from None


@contextlib.contextmanager
def _said_of(path: Path) -> Iterator[None]:
    """An ``OSError`` in the block names *path* (the file being written), not a temp file's name."""
    try:
        yield
    except OSError as error:
        if error.errno is None:
            raise
        raise OSError(error.errno, error.strerror, str(path)) from None


def _data_folder(target: str | bytes | int | None) -> Path | None:
    """The data folder *target* is in (the nearest folder above it with a ``config.toml``), so a
    read-only one is named in the fix; None when there is none (a file written elsewhere)."""
    if not isinstance(target, str):
        return None
    for folder in Path(target).parents:
        with contextlib.suppress(OSError):
            if (folder / "config.toml").is_file():
                return folder
    return None


def fsync_dir(folder: Path) -> None:
    """Make a rename inside *folder* durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def ensure_dir(folder: Path) -> None:
    """Create *folder* and missing parents so that the new entries survive a crash.

    ``mkdir(parents=True)`` alone leaves each new folder's name unflushed in its parent: after a power
    cut the file written inside could be gone together with its folder.
    """
    folder = Path(folder)
    if folder.is_dir():
        return
    missing: list[Path] = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for new in reversed(missing):
        with contextlib.suppress(FileExistsError), storage_errors():
            new.mkdir()
        fsync_dir(new.parent)
    if not folder.is_dir():  # something that is not a folder stands in the way
        raise NotADirectoryError(f"not a folder: {folder}")


def _fsynced_temp(path: Path, data: bytes | Iterable[bytes], *, sync: bool = True) -> Path:
    """*data* (bytes, or chunks of them made as they are written) in a new temp file beside *path*
    (parent folders created), flushed to disk unless *sync* is false."""
    ensure_dir(path.parent)
    with storage_errors(), _said_of(path):
        fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=TEMP_SUFFIX, dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with storage_errors(), _said_of(path), os.fdopen(fd, "wb") as handle:
            for chunk in [data] if isinstance(data, bytes) else data:
                handle.write(chunk)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return tmp


def write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace *path* with *data* atomically, creating parent folders as needed.

    The new file gets *mode* when given; otherwise it keeps the permissions of the file it replaces,
    and a brand-new file gets 0644.
    """
    _replace(Path(path), data, mode)


def write_chunks(path: Path, chunks: Iterable[bytes], *, mode: int | None = None) -> None:
    """:func:`write_bytes` of data made while it is written (a converted chat): nothing holds it
    whole.  An error while *chunks* are made leaves *path* as it was."""
    _replace(Path(path), chunks, mode)


def _replace(path: Path, data: bytes | Iterable[bytes], mode: int | None) -> None:
    tmp = _fsynced_temp(path, data)
    try:
        if mode is None:
            try:
                mode = path.stat().st_mode & 0o7777
            except FileNotFoundError:
                mode = 0o644
        with storage_errors(), _said_of(path):
            os.chmod(tmp, mode)
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)
    _written(path, "replace")


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def create_text(path: Path, text: str) -> bool:
    """Create *path* whole with *text*, never replacing a file; False when it already exists.

    Like :func:`write_bytes` (temp file, fsync) but the temp file is *linked* into place, which fails
    when another process created the file first, where a rename would silently replace it.
    """
    path = Path(path)
    tmp = _fsynced_temp(path, text.encode("utf-8"))
    try:
        try:
            with storage_errors(), _said_of(path):
                os.chmod(tmp, 0o644)
                os.link(tmp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    fsync_dir(path.parent)
    _written(path, "replace")
    return True


def write_cache(path: Path, data: bytes) -> None:
    """Replace a cache file (data the program can always rebuild) with *data*.

    Still a temp file renamed into place, so a reader sees the old bytes or the new ones; but no
    ``fsync`` (after a power cut the file may be empty or torn: a cache checks its own bytes and is
    rebuilt) and no write listeners (the vault keeps no caches).
    """
    path = Path(path)
    tmp = _fsynced_temp(path, data, sync=False)
    try:
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def write_json(path: Path, value: Any, *, indent: int | None = 2) -> None:
    """JSON with CJK kept readable (``ensure_ascii=False``), lone surrogates escaped, a final newline."""
    write_text(path, dumps_json(value, indent=indent) + "\n")


def append_line(path: Path, line: str) -> None:
    """Append one line and fsync, for append-only logs such as session files.

    The line goes out in one ``write`` on an ``O_APPEND`` descriptor, so two processes appending at
    the same time do not interleave inside a line.  A write that fails part-way (a full disk, a file
    size limit) is rolled back: the file is cut back to its old length, so the line is either whole
    or not there at all, and the error is a :class:`~peargarden.errors.StorageError`.  A crash can
    still leave a torn last line (a partial write); the next append starts on a fresh line so that
    the torn one never swallows a good entry, and readers report it (see
    :func:`peargarden.sessions.codec.decode`).  Callers append to one file from one process at a
    time (a chat's lock), so the cut never takes another writer's line.
    """
    path = Path(path)
    ensure_dir(path.parent)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    created = not path.exists()
    with storage_errors():
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        with storage_errors():
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            except OSError as error:
                _cut_back(fd, size)
                if created:  # a file this call made holds nothing: it goes too
                    with contextlib.suppress(OSError):
                        path.unlink()
                raise OSError(error.errno, error.strerror, str(path)) from None  # os.write names no file
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    _written(path, "append")


def _cut_back(fd: int, size: int) -> None:
    """Undo a failed append: the file as long as it was (best effort; the error is raised anyway)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, size)
        os.fsync(fd)


# ".<name>.<pid>-<8 random chars>.tmp" (older versions: no pid), the temp files made above.
_TEMP_NAME = re.compile(r"^\..+\.(?:(\d+)-)?[a-z0-9_]{8}\.tmp$")


def is_temp_name(name: str) -> bool:
    """Whether *name* is a temp file of :func:`write_bytes` (left behind only by a crash)."""
    return bool(_TEMP_NAME.match(name))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, it is someone else's
        return True
    return True


def remove_stale_temp_files(
    root: Path,
    *,
    older_than: float = 3600.0,
    now: float | None = None,
    before_removing: Callable[[Path], None] | None = None,
) -> list[Path]:
    """Delete temp files that crashed writes left under *root*; returns what was deleted.

    A temp file whose writer's pid (in its name) is no longer running goes at once; one of a running
    process, or of an older version without a pid, only when older than *older_than* seconds, so a
    write in progress keeps its temp file.  *now* is a Unix time (default: the current time).
    """
    now = time.time() if now is None else now
    removed: list[Path] = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            match = _TEMP_NAME.match(name)
            if match is None:
                continue
            path = Path(folder) / name
            writer = match.group(1)
            try:
                crashed = writer is not None and not _pid_alive(int(writer))
                if crashed or now - path.lstat().st_mtime >= older_than:
                    if before_removing is not None:
                        before_removing(path)
                    path.unlink()
                    removed.append(path)
            except (FileNotFoundError, ValueError):
                continue
    return removed
