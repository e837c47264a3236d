"""The chats of the data folder as records, for ``pear sessions``: find a chat by id (in one card or
in all of them) and write its active branch out as a SillyTavern chat file.

Loaded by ``pear sessions list``, a light command: the service and the session codecs behind an
export are imported by the export only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import NotFound
from peargarden.formats import TavernChat, TavernMessage, write_chat_jsonl
from peargarden.sessions import TreeRow
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import export_chat
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, list_cards, open_card
from peargarden.workspace.chats import ChatFile, list_chats
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home

from .chat_summaries import summarize

__all__ = ["CardFolder", "ChatRecord", "Entry", "card_folders", "export_sillytavern", "find_chat", "save_file"]


class ChatRecord(msgspec.Struct, frozen=True):
    """A chat as ``pear sessions`` reads it: its card, its active branch and tree, what reading it found."""

    folder: CardFolder
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

    def summary(self) -> dict[str, Any]:
        """What a chat list shows of it (``pear sessions list --json``'s keys)."""

        return summarize(self.folder, self.chat)


def card_folders(home: Home, card: str | None = None) -> list[CardFolder]:
    """The card *card*, or every card when none is named."""
    return [open_card(home, card)] if card else list_cards(home)


def find_chat(home: Home, chat_id: str, card: str | None = None) -> ChatRecord:
    """The chat *chat_id* and its card (searched in *card*, or in every card)."""
    for folder in card_folders(home, card):
        if chat_id in list_chats(folder.chats_dir):
            return ChatRecord(folder, ChatFile.open(folder.chats_dir, chat_id))
    raise NotFound(f"没有对话 {chat_id}（no such chat）", hint="用 pear sessions list 查看")


def export_sillytavern(home: Home, record: ChatRecord) -> bytes:
    """The chat's active branch as a SillyTavern chat JSONL (the other versions of a reply become
    its swipes); the user is the chat's persona, else the card's or config's user name."""

    from .service import st_create_date

    folder, chat = record.folder, record.chat
    card_data = folder.load_card()
    user_name = str(chat.header.get("persona") or "")
    if not user_name:
        user_name = folder.effective_settings(load_settings(home.config_file)).user_name
    header = chat.header.get("st_header")
    st_header = dict(header) if isinstance(header, dict) else {}
    lines = export_chat(chat.tree, st_header, user_name, card_data.name, st_create_date(chat.header))
    return write_chat_jsonl(TavernChat(lines[0], [TavernMessage(line) for line in lines[1:]]))


def save_file(path: Path, data: bytes) -> None:
    """Write an exported file (atomically: a failed write leaves no half file)."""

    atomic.write_bytes(path, data)
