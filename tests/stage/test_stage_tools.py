"""The stage tools on a real data folder: lore look-ups, the supplement book, the write gate, drafts, ask."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from peargarden.agent.tools import ToolContext, ToolRegistry, ToolResult
from peargarden.modes.stage.materials import AGENTS_FILE, load_stage_materials
from peargarden.modes.stage.tools import StageToolEnv, stage_tools
from peargarden.stage.entries import parse_entries
from peargarden.stage.lore.entries import fingerprint
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import SUPPLEMENT_BOOK_FILE, Home
from peargarden.workspace.seed import seed_home

ASKED = "把周伯的外甥阿满这个人记下来：他在渡口帮工，十五岁。"
NOT_ASKED = "她后来去了哪？"


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


@pytest.fixture
def folder(home: Home) -> CardFolder:
    return CardFolder(home, "青梧")


def registry(home: Home, folder: CardFolder, mode: str | None = "ask") -> ToolRegistry:
    return ToolRegistry(stage_tools(StageToolEnv(home, folder, creation_mode=mode)))


def call(tools: ToolRegistry, name: str, args: dict[str, Any], words: str = "", **ctx: Any) -> ToolResult:
    tool = tools.get(name)
    assert tool is not None
    return tool.run(args, ToolContext(user_text=words, **ctx))


def supplement(folder: CardFolder) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((folder.path / SUPPLEMENT_BOOK_FILE).read_text(encoding="utf-8"))
    return value


WRITE_ARGS = {"title": "阿满", "keys": ["阿满"], "content": "阿满是周伯的外甥，十五岁，在镇北渡口帮工，手脚麻利。"}


def test_search_read_and_list(home: Home, folder: CardFolder) -> None:
    tools = registry(home, folder)
    found = call(tools, "lorebook_search", {"query": "镇北渡口"})
    assert found.text.startswith("### 镇北渡口（关键词：")
    assert found.details is not None
    assert found.details["activity"] == f"查设定「镇北渡口」· {len(found.details['hits'])} 条"
    ref = found.details["hits"][0]["ref"]
    read = json.loads(call(tools, "lorebook_read", {"ref": ref, "start": 0, "end": 4}).text)
    assert read["content"] == "镇北渡口" and read["total"] > 4 and read["sources"] == ["栖水镇"]
    listing = call(tools, "lorebook_list", {}).text
    assert "｜常驻｜" in listing and f"指纹 {ref[5:]}" in listing
    assert call(tools, "lorebook_search", {"query": "量子力学"}).text.startswith("设定集里没有写到这一点")
    bad = call(tools, "lorebook_read", {"ref": "lore:nothex"})
    assert bad.is_error and "指纹" in bad.text


def test_blocked_write_changes_nothing_and_says_do_not_ask(home: Home, folder: CardFolder) -> None:
    result = call(registry(home, folder), "lorebook_write", WRITE_ARGS, NOT_ASKED)
    assert result.is_error and "不要" in result.text and "是否写入" in result.text
    assert not (folder.path / SUPPLEMENT_BOOK_FILE).exists()


def test_allowed_write_goes_to_the_supplement_book_from_uid_9000(home: Home, folder: CardFolder) -> None:
    library_before = (home.lorebooks_dir / "栖水镇.json").read_bytes()
    tools = registry(home, folder)
    result = call(tools, "lorebook_write", WRITE_ARGS, ASKED)
    assert not result.is_error
    assert result.text.startswith("已固化为正典：【阿满】关键词 阿满，写在 补充设定集。")
    book = supplement(folder)
    assert list(book["entries"]) == ["9000"] and book["entries"]["9000"]["content"] == WRITE_ARGS["content"]
    assert (home.lorebooks_dir / "栖水镇.json").read_bytes() == library_before  # the original is untouched
    # Searchable at once, and a second identical write is refused.
    assert "### 阿满" in call(tools, "lorebook_search", {"query": "阿满"}).text
    again = call(tools, "lorebook_write", {**WRITE_ARGS, "title": "阿满二"}, ASKED)
    assert again.is_error and "重复" in again.text
    second = call(tools, "lorebook_write", {"title": "规矩", "keys": ["夜渡"], "content": "夜里不开渡船。"}, ASKED)
    assert not second.is_error and list(supplement(folder)["entries"]) == ["9000", "9001"]


def test_silent_mode_does_not_gate(home: Home, folder: CardFolder) -> None:
    result = call(registry(home, folder, mode="silent"), "lorebook_write", WRITE_ARGS, NOT_ASKED)
    assert not result.is_error


def test_gate_mode_comes_from_the_settings(home: Home, folder: CardFolder) -> None:
    # The seeded config.toml says creation_mode = "ask".
    assert load_stage_materials(home, "青梧").creation_mode == "ask"
    result = call(registry(home, folder, mode=None), "lorebook_write", WRITE_ARGS, NOT_ASKED)
    assert result.is_error


def test_supplement_book_is_written_atomically(home: Home, folder: CardFolder, monkeypatch: pytest.MonkeyPatch) -> None:
    tools = registry(home, folder)
    assert not call(tools, "lorebook_write", WRITE_ARGS, ASKED).is_error
    path = folder.path / SUPPLEMENT_BOOK_FILE
    before = path.read_bytes()

    def failing_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    # A full disk is one line the model (and the user) reads, not a crash of the tool.
    failed = call(tools, "lorebook_write", {"title": "新", "keys": ["新"], "content": "另一条新设定。"}, ASKED)
    assert failed.is_error and "磁盘已满" in failed.text and SUPPLEMENT_BOOK_FILE in failed.text
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.path.iterdir() if p.name.startswith(f".{SUPPLEMENT_BOOK_FILE}")) == []


def test_write_into_a_named_mounted_book(home: Home, folder: CardFolder) -> None:
    tools = registry(home, folder)
    result = call(tools, "lorebook_write", {**WRITE_ARGS, "book": "栖水镇"}, ASKED)
    assert "写在 栖水镇" in result.text
    library = json.loads((home.lorebooks_dir / "栖水镇.json").read_text(encoding="utf-8"))
    assert any(e.get("content") == WRITE_ARGS["content"] for e in library["entries"].values())
    missing = call(tools, "lorebook_write", {**WRITE_ARGS, "content": "别的", "book": "不存在的书"}, ASKED)
    assert missing.is_error and "栖水镇" in missing.text


def test_update_and_delete_follow_the_gate(home: Home, folder: CardFolder) -> None:
    tools = registry(home, folder)
    call(tools, "lorebook_write", WRITE_ARGS, ASKED)
    details = call(tools, "lorebook_search", {"query": "阿满"}).details
    assert details is not None
    ref = details["hits"][0]["ref"]
    assert call(tools, "lorebook_update", {"ref": ref, "content": "阿满十六岁了。"}, "继续").is_error
    updated = call(tools, "lorebook_update", {"ref": ref, "content": "阿满十六岁了。"}, "阿满的年纪记错了")
    assert not updated.is_error
    assert supplement(folder)["entries"]["9000"]["content"] == "阿满十六岁了。"
    new_ref = "lore:" + fingerprint("阿满十六岁了。")
    blocked = call(tools, "lorebook_delete", {"ref": new_ref}, "把阿满记下来")
    assert blocked.is_error and "是否删除" in blocked.text
    assert not call(tools, "lorebook_delete", {"ref": new_ref}, "阿满那条删掉吧").is_error
    assert supplement(folder)["entries"] == {}


def test_constant_write_is_mirrored_into_an_existing_agents_file(home: Home, folder: CardFolder) -> None:
    agents = folder.path / AGENTS_FILE
    agents.write_text("## 我的规矩\n不替用户说话。\n", encoding="utf-8")
    tools = registry(home, folder)
    args = {"title": "宵禁", "keys": [], "content": "栖水镇入夜后不许点河灯。", "constant": True}
    result = call(tools, "lorebook_write", args, ASKED)
    assert "（常驻注入）" in result.text
    names = [e.name for e in parse_entries(agents.read_text(encoding="utf-8"))]
    assert names == ["我的规矩", "栖水镇（世界书·栖水镇）", "宵禁（世界书·补充设定）"]


def test_draft_tools_and_ask_end_the_beat(home: Home, folder: CardFolder) -> None:
    tools = registry(home, folder)
    ctx = ToolContext()
    write = tools.get("draft_write")
    edit = tools.get("draft_edit")
    seal = tools.get("draft_seal")
    ask = tools.get("ask")
    assert write and edit and seal and ask
    assert write.run({"content": "青梧的手顿了顿。"}, ctx).details == {"version": 1}
    stale = edit.run({"old_text": "顿了顿", "new_text": "停住了", "version": 0}, ctx)
    assert stale.is_error and "v1" in stale.text
    assert not edit.run({"old_text": "顿了顿", "new_text": "停住了", "version": 1}, ctx).is_error
    sealed = seal.run({}, ctx)
    assert sealed.ends_beat and sealed.details == {"prose": "青梧的手停住了。", "version": 2}
    asked = ask.run({"question": "你要住几日？", "options": ["一日", "三日"]}, ToolContext())
    assert asked.ends_beat and asked.details == {
        "kind": "choice",
        "question": "你要住几日？",
        "options": ["一日", "三日"],
        "free_text": True,
    }
    assert ask.run({"question": "？", "options": ["只有一个"]}, ToolContext()).is_error


def test_tools_find_the_card_through_the_context(home: Home, folder: CardFolder) -> None:
    tools = ToolRegistry(stage_tools())
    tool = tools.get("lorebook_search")
    assert tool is not None
    result = tool.run({"query": "听雨轩"}, ToolContext(home=home.root, card_dir=folder.path))
    assert result.text.startswith("### 听雨轩")
    assert tool.run({"query": "听雨轩"}, ToolContext()).is_error


def test_search_failure_says_to_go_on_with_known_facts(home: Home, folder: CardFolder) -> None:
    (folder.path / "卡.json").write_text("{不是 JSON", encoding="utf-8")
    result = call(registry(home, folder), "lorebook_search", {"query": "听雨轩"})
    assert result.is_error and result.text.startswith("检索失败：") and result.text.endswith("按已知事实继续写。")
