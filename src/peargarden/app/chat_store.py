"""Session files on disk: ``cards/<card>/chats/<chat id>/session.jsonl`` (the I/O edge of sessions).

The tree logic is pure (:mod:`peargarden.sessions`); this module reads a file into a tree, appends one
fsynced line per entry (``workspace.atomic.append_line``) and makes the ids and timestamps the pure
core must not make itself.  A chat id is ``YYYYMMDD-HHMMSS-<4 hex>`` (local time of creation).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, NotFound
from peargarden.sessions import (
    Entry,
    Plan,
    SessionTree,
    custom_entry,
    decode,
    entry_line,
    header_line,
    leaf_line,
    message_entry,
)
from peargarden.workspace import atomic

SESSION_FILE = "session.jsonl"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_chat_id(now: datetime | None = None) -> str:
    moment = now or datetime.now()
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def valid_chat_id(chat_id: str) -> bool:
    return bool(chat_id) and all(ch.isalnum() or ch in "-_." for ch in chat_id) and chat_id[0].isalnum()


@dataclass
class ChatFile:
    """One chat: its folder, header and tree, kept in step with the file."""

    path: Path
    header: dict[str, Any]
    tree: SessionTree
    warnings: list[str]
    clock: Callable[[], str] = utc_now

    @property
    def chat_id(self) -> str:
        return str(self.header.get("id") or self.path.parent.name)

    # -- creating and opening ------------------------------------------------------------------

    @classmethod
    def create(cls, chats_dir: Path, chat_id: str | None = None, **header: Any) -> ChatFile:
        chat_id = chat_id or new_chat_id()
        while (chats_dir / chat_id).exists():
            chat_id = new_chat_id()
        path = chats_dir / chat_id / SESSION_FILE
        now = utc_now()
        atomic.append_line(path, header_line(chat_id, now, **header))
        return cls(
            path,
            {"type": "session", "version": 1, "id": chat_id, "timestamp": now, **header},
            SessionTree(),
            [],
        )

    @classmethod
    def open(cls, chats_dir: Path, chat_id: str) -> ChatFile:
        if not valid_chat_id(chat_id):
            raise BadInput(f"对话 id 不合法：{chat_id!r}")
        path = chats_dir / chat_id / SESSION_FILE
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise NotFound(f"没有对话 {chat_id}（no such chat）") from None
        loaded = decode(data.decode("utf-8", errors="replace").split("\n"))
        return cls(path, loaded.header, loaded.tree, loaded.warnings)

    # -- writing --------------------------------------------------------------------------------

    def new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self.tree:
                return candidate

    def append(self, entry: Entry) -> Entry:
        """Write *entry* (fsynced), then add it to the tree: on a failed write the tree is unchanged."""
        if entry.parent_id is not None and entry.parent_id not in self.tree:
            raise NotFound(f"会话里没有父条目 {entry.parent_id}")
        atomic.append_line(self.path, entry_line(entry))
        return self.tree.add(entry)

    def append_message(self, message: dict[str, Any]) -> Entry:
        return self.append(message_entry(self.new_id(), self.tree.leaf, self.clock(), message))

    def append_custom(self, custom_type: str, data: Any) -> Entry:
        return self.append(custom_entry(self.new_id(), self.tree.leaf, self.clock(), custom_type, data))

    def move_leaf(self, leaf: str | None) -> None:
        if leaf == self.tree.leaf:
            return
        if leaf is not None and leaf not in self.tree:
            raise NotFound(f"会话里没有条目 {leaf}")
        atomic.append_line(self.path, leaf_line(leaf, self.clock()))
        self.tree.set_leaf(leaf)

    def apply(self, plan: Plan) -> None:
        """Carry out a plan of :mod:`peargarden.sessions.ops` (leaf move, then the new entries)."""
        if not plan.entries:
            self.move_leaf(plan.start_leaf)
            return
        first = plan.entries[0]
        if first.parent_id != plan.start_leaf:
            raise BadInput("内部错误：计划的第一条不接在起点上")
        self.tree.set_leaf(plan.start_leaf)  # the entry line itself records the fork on disk
        for entry in plan.entries:
            self.append(entry)


def list_chats(chats_dir: Path) -> list[str]:
    try:
        return sorted(
            p.name for p in chats_dir.iterdir() if p.is_dir() and (p / SESSION_FILE).is_file() and valid_chat_id(p.name)
        )
    except OSError:
        return []
