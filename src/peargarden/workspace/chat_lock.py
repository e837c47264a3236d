"""One beat per chat at a time, across processes (``pear chat``, ``pear serve``, two terminals).

Each chat has a lock file under ``vault/locks/`` (see :mod:`.locking`).  The holder takes an
exclusive ``flock`` on it without waiting and writes its pid into it; the loser reads that pid and
gets a one-line :class:`ChatBusy`.  The kernel drops a ``flock`` when its process dies, however it
dies (``kill -9`` included), so a lock left by a crash is stale by construction: the file still
names the dead pid, but the next process takes the lock at once and writes its own.

A second :class:`ChatLock` on the same file in the *same* process is refused too (``flock`` belongs
to the open file, not the process), which is what the web app wants when two tabs play one chat.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from peargarden.errors import ConflictError

from .atomic import ensure_dir, storage_errors
from .home import Home
from .locking import lock_file_for


class ChatBusy(ConflictError):
    """Another beat (this process or another one) is playing the chat."""


def chat_lock_file(home: Home, card_folder: str, chat_id: str) -> Path:
    return lock_file_for(home, f"beat:{card_folder}/{chat_id}")


def holder_pid(path: Path) -> int | None:
    """The pid written in a lock file (None when empty or unreadable)."""
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class ChatLock:
    """Take with :meth:`acquire` (never waits), give back with :meth:`release` (idempotent)."""

    def __init__(self, path: Path, chat_id: str) -> None:
        self.path = path
        self.chat_id = chat_id
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            raise ChatBusy(self._busy_message(os.getpid()))
        ensure_dir(self.path.parent)
        with storage_errors():  # a read-only data folder: one line naming it, not a traceback
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ChatBusy(self._busy_message(holder_pid(self.path))) from None
        except BaseException:
            os.close(fd)
            raise
        # Ours now; whatever pid the file still names (a crashed holder) is overwritten.  The pid only
        # names us in another process's "busy" line: on a full disk it goes unwritten (the flock is
        # the lock), and the beat's own write then says what is full, naming the chat's file.
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError:
            pass
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)  # an empty file: nobody holds it (the file stays; see .locking)
        except OSError:
            pass
        finally:
            os.close(fd)  # closing drops the flock

    def _busy_message(self, pid: int | None) -> str:
        who = f"pear 进程 {pid}" if pid else "另一个 pear 进程"
        return f"对话 {self.chat_id} 正在生成回复（{who}）：等它结束再试（chat busy）"
