"""Streamed text survives a crash: the reply being streamed is checkpointed, and kept as incomplete.

The loop records a reply when its round ends (also on Ctrl-C or an endpoint failure, with what came
so far).  A process killed in the middle of a stream never gets there, and the words the user
already read would be lost.  So while a reply streams, its text so far is written (atomically, at
most once a second or every 500 new characters) to a checkpoint file under ``vault/streaming/``
(the program's own folder: not a chat file, never snapshotted); the file goes as soon as the loop
records the reply.  A checkpoint still there when the chat is next claimed (its beat's process is
gone: the claimant holds the chat's lock) becomes an assistant message with ``stop_reason``
``"incomplete"`` and the tag ``incomplete``, under the entry it was answering.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from peargarden.sessions import message_entry
from peargarden.workspace import atomic
from peargarden.workspace.chats import ChatFile, utc_now
from peargarden.workspace.home import Home
from peargarden.workspace.locking import lock_file_for

INCOMPLETE = "incomplete"
EVERY_SECONDS = 1.0
EVERY_CHARS = 500


def checkpoint_file(home: Home, card_folder: str, chat_id: str) -> Path:
    stem = lock_file_for(home, f"stream:{card_folder}/{chat_id}").stem
    return home.vault_dir / "streaming" / f"{stem}.json"


class StreamCheckpoint:
    """Fed the beat's text and thinking as they stream; :meth:`recorded` after each recorded reply."""

    def __init__(self, path: Path, leaf: Callable[[], str | None], clock: Callable[[], float] = time.monotonic):
        self.path = path
        self._leaf = leaf
        self._clock = clock
        self.text = ""
        self.reasoning = ""
        self._written_at = 0.0
        self._written_chars = 0
        self._on_disk = False

    def add(self, text: str = "", reasoning: str = "") -> None:
        self.text += text
        self.reasoning += reasoning
        grown = len(self.text) + len(self.reasoning) - self._written_chars
        if grown >= EVERY_CHARS or (grown and self._clock() - self._written_at >= EVERY_SECONDS):
            self._write()

    def _write(self) -> None:
        data = {"parentId": self._leaf(), "text": self.text, "reasoning": self.reasoning, "timestamp": utc_now()}
        try:
            atomic.write_json(self.path, data, indent=None)
        except OSError:
            return  # a checkpoint is insurance; failing to write one must not stop the reply
        self._written_at = self._clock()
        self._written_chars = len(self.text) + len(self.reasoning)
        self._on_disk = True

    def recorded(self) -> None:
        """The loop wrote the reply into the chat: the checkpoint has served."""
        self.text = self.reasoning = ""
        self._written_chars = 0
        if self._on_disk:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self._on_disk = False


def recover(path: Path, chat: ChatFile, name: str) -> bool:
    """A checkpoint left by a beat that never finished, as an incomplete reply; True when one was added.

    Call it holding the chat's lock.  A checkpoint whose entry is not in the chat, or with nothing in
    it, is dropped.
    """
    try:
        data: Any = json.loads(path.read_bytes())
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        data = None
    added = False
    if isinstance(data, dict) and (data.get("text") or data.get("reasoning")):
        parent = data.get("parentId")
        if parent is None or (isinstance(parent, str) and parent in chat.tree):
            message: dict[str, Any] = {
                "role": "assistant",
                "content": str(data.get("text") or ""),
                "name": name,
                "stop_reason": INCOMPLETE,
                "tags": [INCOMPLETE],
            }
            if data.get("reasoning"):
                message["reasoning"] = str(data["reasoning"])
            chat.append(message_entry(chat.new_id(), parent, str(data.get("timestamp") or utc_now()), message))
            added = True
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return added
