"""The SillyTavern export of a chat with swipes, side branches, a tool round and a lone surrogate is
byte for byte what the export wrote before it was made faster (``expected-export.jsonl`` was written
by the code of commit b7ec7cf from the ``session.jsonl`` beside it)."""

from __future__ import annotations

from pathlib import Path

from peargarden.formats import TavernChat, TavernMessage, write_chat_jsonl
from peargarden.sessions.sillytavern import export_chat
from peargarden.workspace.chats import ChatFile

GOLD = Path(__file__).resolve().parents[1] / "data" / "sessions" / "20261201-000000-gold"


def test_the_export_of_a_chat_with_swipes_is_unchanged() -> None:
    chat = ChatFile.open(GOLD.parent, GOLD.name)
    assert len(chat.tree) > 250 and chat.tree.path()[-1].id == "t0000004"
    lines = export_chat(chat.tree, {}, "旅人", "青梧", "2026-12-01@00h00m00s")
    data = write_chat_jsonl(TavernChat(lines[0], [TavernMessage(line) for line in lines[1:]]))
    assert data == (GOLD / "expected-export.jsonl").read_bytes()
