"""Streamed text survives a crash: the reply being streamed is checkpointed, and kept as incomplete.

The loop records a reply when its round ends (also on Ctrl-C or an endpoint failure, with what came
so far).  A process killed in the middle of a stream never gets there, and the words the user
already read would be lost.  So while a reply streams, what came since the last write is *appended*
(once a second, or sooner once 500 new characters came — but not more than twenty times a second:
a reply streamed as fast as the socket takes it made thirteen thousand writes for 20 MB, a quarter
of its CPU) to a checkpoint file under ``vault/streaming/``
(the program's own folder: not a chat file, never snapshotted); the file goes as soon as the loop
records the reply.  A checkpoint still there when the chat is next claimed (its beat's process is
gone: the claimant holds the chat's lock) becomes an assistant message with ``stop_reason``
``"incomplete"`` and the tag ``incomplete``, under the entry it was answering.

The file is JSON lines: the first names the entry the reply answers (``parentId``) and when it
began; each later one carries a piece of the text (``{"text": …}``) or of the reasoning
(``{"reasoning": …}``), in order.  Appending keeps a long reply's cost linear: rewriting the whole
text each time (as this once did) made a 10 MB reply write gigabytes.  Each append is one ``write``
of whole lines; one cut short (a full disk) is cut back off, so what is on disk is always whole lines
plus at most a torn last one after a crash, which recovery skips.  The file is flushed to disk at most
once a second: it is insurance against a killed process, which loses nothing the kernel was handed.
A checkpoint of an older version (one JSON object with the whole ``text`` and ``reasoning``) reads
as a first line with everything in it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from peargarden.formats import dumps_json
from peargarden.providers.base import take_back
from peargarden.sessions import message_entry
from peargarden.workspace import atomic
from peargarden.workspace.chats import ChatFile, utc_now
from peargarden.workspace.home import Home
from peargarden.workspace.locking import lock_file_for

INCOMPLETE = "incomplete"
EVERY_SECONDS = 1.0
EVERY_CHARS = 500
MIN_GAP = 0.05  # seconds between two writes at least: a kill loses at most this much of a fast stream


def checkpoint_file(home: Home, card_folder: str, chat_id: str) -> Path:
    stem = lock_file_for(home, f"stream:{card_folder}/{chat_id}").stem
    return home.vault_dir / "streaming" / f"{stem}.json"


class StreamCheckpoint:
    """Fed the beat's text and thinking as they stream; :meth:`recorded` after each recorded reply.
    A checkpoint never recorded stays on disk for the next claimant (its file is closed with it)."""

    def __init__(self, path: Path, leaf: Callable[[], str | None], clock: Callable[[], float] = time.monotonic):
        self.path = path
        self._leaf = leaf
        self._clock = clock
        self._text: list[str] = []  # what came since the last write
        self._reasoning: list[str] = []
        self._retracts: list[str] = []  # ends of the text taken back that an earlier write holds
        self._pending_chars = 0
        self._written_at = 0.0
        self._synced_at = 0.0
        self._fd: int | None = None
        self._closer: weakref.finalize[[int], StreamCheckpoint] | None = None  # closes the file if the beat is dropped
        self._size = 0  # bytes of whole lines in the file
        self._retry_at = 0.0  # after a failed write, no new try before this time
        self._failed = False  # a write failed and could not be cut back: no more checkpoints this reply

    def add(self, text: str = "", reasoning: str = "") -> None:
        if text:
            self._text.append(text)
            self._pending_chars += len(text)
        if reasoning:
            self._reasoning.append(reasoning)
            self._pending_chars += len(reasoning)
        grown = self._pending_chars
        if not grown:
            return
        since = self._clock() - self._written_at
        if since >= EVERY_SECONDS or (grown >= EVERY_CHARS and since >= MIN_GAP):
            self._write()

    def take_back(self, text: str) -> None:
        """The end *text* of the streamed reply was taken back (a guard's ``text_retract``): cut from
        what waits to be written, and what an earlier write holds of it becomes a ``retract`` line
        (read back in order: the text waiting now comes after it)."""
        pending = "".join(self._text)
        cut = len(text) if pending.endswith(text) else len(pending) if text.endswith(pending) else 0
        self._text = [pending[: len(pending) - cut]] if len(pending) > cut else []
        self._pending_chars = max(0, self._pending_chars - cut)
        written = text[: len(text) - cut]
        if written:
            self._retracts.append(written)
            self._pending_chars += 1

    def _pending_lines(self) -> list[str]:
        """What came since the last write, one line for the text and one for the reasoning (their
        order does not matter: each is read back as its own run)."""
        lines = [dumps_json({"retract": text}) for text in self._retracts]
        if self._text:
            lines.append(dumps_json({"text": "".join(self._text)}))
        if self._reasoning:
            lines.append(dumps_json({"reasoning": "".join(self._reasoning)}))
        return lines

    def _write(self) -> None:
        now = self._clock()
        if self._failed:
            self._drop_pending()
            return
        if now < self._retry_at:
            self._pending_chars = 0
            return
        self._written_at = now
        lines = self._pending_lines()
        try:
            if self._fd is None:
                atomic.ensure_dir(self.path.parent)
                self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                self._closer = weakref.finalize(self, _close_quietly, self._fd)
            if self._size == 0:
                lines = [dumps_json({"parentId": self._leaf(), "timestamp": utc_now()}), *lines]
            self._append(("\n".join(lines) + "\n").encode("utf-8"))
        except OSError:
            # A checkpoint is insurance: failing to write one must not stop the reply.  What was
            # not written waits for the next try, a second later, so the text on disk has no gap.
            self._pending_chars = 0
            self._retry_at = now + EVERY_SECONDS
            return
        self._drop_pending()
        if now - self._synced_at >= EVERY_SECONDS:
            self._synced_at = now
            with contextlib.suppress(OSError):
                os.fsync(self._fd)

    def _drop_pending(self) -> None:
        self._text, self._reasoning, self._pending_chars = [], [], 0
        self._retracts = []

    def _append(self, data: bytes) -> None:
        """*data* (whole lines) at the end of the file in one go, or nothing: a write cut short is cut
        back off, so the next append does not glue onto a partial line."""
        assert self._fd is not None
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)
                os.lseek(self._fd, self._size, os.SEEK_SET)
            except OSError:
                self._failed = True  # a torn line stays last; recovery skips it
            raise
        self._size += len(data)

    def recorded(self) -> None:
        """The loop wrote the reply into the chat: the checkpoint has served."""
        self._drop_pending()
        self._size, self._retry_at, self._failed = 0, 0.0, False
        if self._closer is not None:
            self._closer()
            self._fd = self._closer = None
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def read_checkpoint(data: bytes) -> tuple[dict[str, Any] | None, str, str]:
    """The header (``None`` when there is none), text and reasoning a checkpoint file holds; a line
    that does not parse (a torn last one) is skipped."""
    header: dict[str, Any] | None = None
    text: list[str] = []
    reasoning: list[str] = []
    for line in _lines(data):
        try:
            value: Any = json.loads(line)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        if header is None:
            header = value
        piece = value.get("retract")
        if isinstance(piece, str):
            text[:] = [take_back("".join(text), piece)]
        piece = value.get("text")
        if isinstance(piece, str):
            text.append(piece)
        piece = value.get("reasoning")
        if isinstance(piece, str):
            reasoning.append(piece)
    return header, "".join(text), "".join(reasoning)


def _lines(data: bytes) -> Iterator[bytes]:
    for line in data.split(b"\n"):
        if line.strip():
            yield line


def recover(path: Path, chat: ChatFile, name: str) -> bool:
    """A checkpoint left by a beat that never finished, as an incomplete reply; True when one was added.

    Call it holding the chat's lock.  A checkpoint whose entry is not in the chat, or with no words in
    it (nothing, or only reasoning), is dropped.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        data = b""
    header, text, reasoning = read_checkpoint(data)
    added = False
    # Reasoning without words is no reply (see agent.loop): no empty assistant message comes back.
    if header is not None and text.strip():
        parent = header.get("parentId")
        if parent is None or (isinstance(parent, str) and parent in chat.tree):
            message: dict[str, Any] = {
                "role": "assistant",
                "content": text,
                "name": name,
                "stop_reason": INCOMPLETE,
                "tags": [INCOMPLETE],
            }
            if reasoning:
                message["reasoning"] = reasoning
            chat.append(message_entry(chat.new_id(), parent, str(header.get("timestamp") or utc_now()), message))
            added = True
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return added
