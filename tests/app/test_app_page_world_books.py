"""A card's page scripts change its world books (issue 45 item 4): ``replaceWorldbook`` (and so
``updateWorldbookWith``, ``createWorldbookEntries``, ``deleteWorldbookEntries``, which the page's bridge
builds on it) writes the library book mounted on the card, as the stage's lorebook tools write it,
behind the same write gate; the card's embedded book and unknown books are refused with one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.page_scripts import run_calls
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.workspace.home import Home
from peargarden.workspace.library import lorebook_path
from peargarden.workspace.seed import seed_home

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from script_card import CARD, add_script_card  # type: ignore[import-not-found]

BOOK = "账本书"
SCRIPT = "0b-panel"


def _entry(uid: int, comment: str, content: str) -> dict[str, Any]:
    return {"uid": uid, "key": ["账"], "comment": comment, "content": content, "constant": False, "disable": False,
            "order": 100, "position": 0}  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Home:
    home = Home(tmp_path / "梨园")
    seed_home(home)
    add_script_card(home)
    book = {"entries": {"0": _entry(0, "账目", "本月收租 30。")}}
    lorebook_path(home, BOOK).write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    settings_file = home.card_dir(CARD) / "卡.json"
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    settings_file.write_text(json.dumps({**settings, "lorebooks": [BOOK]}, ensure_ascii=False), encoding="utf-8")
    return home


def _chat(home: Home) -> ChatSession:
    return PearApp(home).new_chat(CARD, ChatOptions(mode="tavern"))


def _call(chat: ChatSession, name: str, *args: Any) -> dict[str, Any]:
    answer = run_calls(chat, [{"script": SCRIPT, "name": name, "args": list(args)}])["answers"][0]
    return dict(answer)


def test_a_script_rewrites_a_mounted_book_as_the_stages_tools_do(home: Home) -> None:
    home.config_file.write_text('creation_mode = "silent"\n', encoding="utf-8")  # the gate open
    chat = _chat(home)
    entries = json.loads(_call(chat, "getWorldbook", BOOK)["json"])
    assert [entry["content"] for entry in entries] == ["本月收租 30。"]
    entries[0]["content"] = "本月收租 58。"
    entries.append({**entries[0], "uid": 1, "name": "新账", "content": "押金 100。"})
    assert "error" not in _call(chat, "replaceWorldbook", BOOK, entries)
    stored = json.loads(lorebook_path(home, BOOK).read_text(encoding="utf-8"))
    assert sorted(entry["content"] for entry in stored["entries"].values()) == ["押金 100。", "本月收租 58。"]
    again = json.loads(_call(_chat(home), "getWorldbook", BOOK)["json"])  # a new host reads the file
    assert sorted(entry["content"] for entry in again) == ["押金 100。", "本月收租 58。"]


def test_the_write_gate_and_books_a_script_may_not_write(home: Home) -> None:
    before = lorebook_path(home, BOOK).read_bytes()
    home.config_file.write_text('creation_mode = "ask"\n', encoding="utf-8")
    chat = _chat(home)
    entries = json.loads(_call(chat, "getWorldbook", BOOK)["json"])
    refused = _call(chat, "replaceWorldbook", BOOK, entries)
    assert "写入闸门" in refused["error"] and "\n" not in refused["error"]
    assert lorebook_path(home, BOOK).read_bytes() == before
    unknown = _call(chat, "replaceWorldbook", "别人的书", entries)
    assert "error" in unknown
    assert "脚本不能删除世界书" in _call(chat, "deleteWorldbook", BOOK)["error"]
    assert lorebook_path(home, BOOK).read_bytes() == before
    # The player asks to record it: the gate lets this beat's writes through, as for the stage's tools.
    assert "error" not in _call(chat, "triggerSlash", "/send 把押金记下来。")
    entries[0]["content"] = "押金 100。"
    assert "error" not in _call(chat, "replaceWorldbook", BOOK, entries)
    assert "押金 100。" in lorebook_path(home, BOOK).read_text(encoding="utf-8")


def test_a_script_adds_a_message_to_a_new_chat(home: Home) -> None:
    """A new chat's greeting is not written before the first beat; a script's new message asked the
    greeting's number on the way and failed (``没有第 0 条消息``)."""
    chat = _chat(home)
    made = _call(chat, "createChatMessages", [{"role": "user", "message": "把押金记下来。"}])
    assert "error" not in made, made
    assert [row.content for row in chat.view().rows][-1] == "把押金记下来。"
