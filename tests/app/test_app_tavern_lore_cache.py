"""Tavern mode parses a chat's lorebooks once: later beats reuse them until the file changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.modes.tavern.setup import _LOREBOOKS_KEY
from peargarden.modes.tavern.sources import _WORLDS_KEY
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.workspace import atomic
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.library import lorebook_path
from peargarden.workspace.seed import seed_home

BOOK = "栖水镇"


@pytest.fixture
def home(home_dir: Path) -> Home:
    h = Home(home_dir)
    seed_home(h)
    return h


def _chat(home: Home, *replies: str) -> tuple[ChatSession, ScriptedProvider]:
    provider = ScriptedProvider().add(*(text_turn(reply) for reply in replies))

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, "medium")

    return PearApp(home, provider_factory=factory).new_chat(None, ChatOptions(mode="tavern")), provider


def _sent(provider: ScriptedProvider) -> str:
    return "\n".join(str(m["content"]) for m in provider.requests[-1].messages)


def test_later_beats_reuse_the_parsed_book_until_its_file_changes(home: Home) -> None:
    chat, provider = _chat(home, "雨下了三天了。", "桥那边有人撑伞。", "新桥刚修好。")
    list(chat.send("栖水镇这几天下雨吗？"))
    data = chat.env.cache[_WORLDS_KEY][f"library:{BOOK}"][1]
    books = chat.env.cache[_LOREBOOKS_KEY]
    book = books.get(BOOK, data)
    # The scan ran on these very entries: the engine left its per-entry plans on them.
    assert all(entry.cache for entry in book.entries if not entry.raw.get("disable"))

    list(chat.send("镇上的茶馆还开着吗？"))
    assert chat.env.cache[_WORLDS_KEY][f"library:{BOOK}"][1] is data
    assert books.get(BOOK, data) is book

    path = lorebook_path(home, BOOK)
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["entries"]["0"]["content"] = "栖水镇今年在清溪河上修了一座新石桥。"
    atomic.write_json(path, edited)
    list(chat.send("镇上最近有什么新鲜事？"))
    assert "栖水镇今年在清溪河上修了一座新石桥。" in _sent(provider)
    assert chat.env.cache[_WORLDS_KEY][f"library:{BOOK}"][1] is not data
