"""The chats of the data folder as records, for ``pear sessions``: find a chat by id (in one card, or
in every card and then every group) and write its active branch out as a SillyTavern chat file (a
group's as SillyTavern's group chat; a card's ``create_date`` from the session header:
:func:`st_create_date`, the service's export's too).

Loaded by ``pear sessions list``, a light command: it imports no part of the service.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from peargarden.errors import NotFound
from peargarden.formats import TavernChat, TavernMessage, format_create_date, write_chat_jsonl
from peargarden.sessions import TreeRow
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import export_chat
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, list_cards, open_card
from peargarden.workspace.chats import ChatFile, list_chats
from peargarden.workspace.config import load_settings
from peargarden.workspace.groups import GroupFolder, list_groups
from peargarden.workspace.home import Home

from ..library.groups import group_chat_jsonl
from .chat_summaries import summarize

__all__ = [
    "CardFolder",
    "ChatRecord",
    "Entry",
    "GroupChatRecord",
    "card_folders",
    "export_sillytavern",
    "find_any_chat",
    "find_chat",
    "save_file",
]


F = TypeVar("F", CardFolder, GroupFolder)


class _Record(msgspec.Struct, Generic[F], frozen=True):
    """A chat as ``pear sessions`` reads it: where it lives, its active branch and tree, what reading
    it found."""

    folder: F
    chat: ChatFile

    @property
    def leaf(self) -> str | None:
        return self.chat.tree.leaf

    @property
    def warnings(self) -> list[str]:
        return list(self.chat.warnings)

    @property
    def header(self) -> dict[str, Any]:
        return self.chat.header

    def messages(self) -> list[Entry]:
        """The active branch's messages, numbered from 0 as ``pear chat``'s /show counts them."""
        return self.chat.tree.messages()

    def tree_rows(self) -> list[TreeRow]:
        return self.chat.tree.rows()


class ChatRecord(_Record[CardFolder], frozen=True):
    """A card's chat."""

    def summary(self) -> dict[str, Any]:
        """What a chat list shows of it (``pear sessions list --json``'s keys)."""
        return summarize(self.folder, self.chat)


class GroupChatRecord(_Record[GroupFolder], frozen=True):
    """A group's chat."""

    def summary(self) -> dict[str, Any]:
        """A card's chat's keys, with ``card`` ``null`` and ``group`` the group's folder."""
        return {**summarize(self.folder, self.chat), "card": None, "group": self.folder.folder}


def card_folders(home: Home, card: str | None = None) -> list[CardFolder]:
    """The card *card*, or every card when none is named."""
    return [open_card(home, card)] if card else list_cards(home)


def find_chat(home: Home, chat_id: str, card: str | None = None) -> ChatRecord:
    """The chat *chat_id* and its card (searched in *card*, or in every card)."""
    for folder in card_folders(home, card):
        if chat_id in list_chats(folder.chats_dir):
            return ChatRecord(folder, ChatFile.open(folder.chats_dir, chat_id))
    raise NotFound(f"没有对话 {chat_id}（no such chat）", hint="用 pear sessions list 查看")


def find_any_chat(home: Home, chat_id: str, card: str | None = None) -> ChatRecord | GroupChatRecord:
    """The chat *chat_id*: a card's (in *card*, or in every card), else, with no card named, a group's."""
    try:
        return find_chat(home, chat_id, card)
    except NotFound:
        if card:
            raise
    for group in list_groups(home):
        if chat_id in list_chats(group.chats_dir):
            return GroupChatRecord(group, ChatFile.open(group.chats_dir, chat_id))
    raise NotFound(
        f"没有对话 {chat_id}（no such chat）", hint="卡的对话见 pear sessions list，群聊的见 pear group chats"
    )


def export_sillytavern(home: Home, record: ChatRecord | GroupChatRecord) -> bytes:
    """The chat's active branch as a SillyTavern chat JSONL (the other versions of a reply become
    its swipes); the user is the chat's persona, else the card's or config's user name."""
    folder, chat = record.folder, record.chat
    if isinstance(folder, GroupFolder):
        user_name = str(chat.header.get("persona") or "") or load_settings(home.config_file).user_name
        return group_chat_jsonl(chat, user_name, folder.read().name or folder.folder)
    card_data = folder.load_card()
    user_name = str(chat.header.get("persona") or "")
    if not user_name:
        user_name = folder.effective_settings(load_settings(home.config_file)).user_name
    header = chat.header.get("st_header")
    st_header = dict(header) if isinstance(header, dict) else {}
    lines = export_chat(chat.tree, st_header, user_name, card_data.name, st_create_date(chat.header))
    return write_chat_jsonl(TavernChat(lines[0], [TavernMessage(line) for line in lines[1:]]))


def st_create_date(header: dict[str, Any]) -> str:
    """ST's ``create_date`` for a chat started here: its session header's timestamp, ST-formatted."""
    try:
        created = datetime.fromisoformat(str(header.get("timestamp") or "").replace("Z", "+00:00"))
    except ValueError:
        return ""
    return format_create_date(created.astimezone())


def save_file(path: Path, data: bytes) -> None:
    """Write an exported file (atomically: a failed write leaves no half file)."""

    atomic.write_bytes(path, data)
