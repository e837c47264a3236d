"""Story history from session messages: sealed prose replayed from draft calls, no tool traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peargarden.cli import main
from peargarden.modes.stage.materials import AGENTS_FILE, create_agents_file, load_stage_materials
from peargarden.stage.entries import parse_entries
from peargarden.stage.history import beat_prose, beat_result, story_turns
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def calls(*pairs: tuple[str, str, dict[str, Any]], text: str = "") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {"id": cid, "name": name, "arguments": json.dumps(args, ensure_ascii=False)} for cid, name, args in pairs
        ],
    }


def result(cid: str, text: str = "好", error: bool = False) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": text, "is_error": error}


SEALED_BEAT: list[dict[str, Any]] = [
    calls(("a", "lorebook_search", {"query": "怀瑾"}), text="我先查一下。"),
    result("a", "### 怀瑾……"),
    calls(("b", "draft_write", {"content": "青梧放下算盘。她没有回答。"})),
    result("b"),
    calls(("c", "draft_edit", {"old_text": "不存在", "new_text": "x"})),
    result("c", "找不到", error=True),
    calls(("d", "draft_edit", {"old_text": "她没有回答。", "new_text": "她望向那把旧伞。"}), ("e", "draft_seal", {})),
    result("d"),
    result("e"),
]


def test_sealed_beat_prose_is_replayed_from_the_draft_calls() -> None:
    assert beat_prose(SEALED_BEAT) == "青梧放下算盘。她望向那把旧伞。"


def test_plain_streamed_replies_are_the_prose() -> None:
    assert beat_prose([{"role": "assistant", "content": "雨还在下。"}]) == "雨还在下。"


def test_an_unsealed_draft_is_kept_and_flagged() -> None:
    outcome = beat_result(SEALED_BEAT[:4])
    assert outcome.text == "青梧放下算盘。她没有回答。" and not outcome.sealed
    assert outcome.warnings == ("稿件已保存，本拍尚未收笔",)
    assert beat_result(SEALED_BEAT).sealed and beat_result(SEALED_BEAT).warnings == ()


def test_story_turns_keep_greeting_user_words_and_prose_only() -> None:
    messages = [
        {"role": "assistant", "content": "客官里边请。"},
        {"role": "user", "content": "掌柜可还记得怀瑾？"},
        *SEALED_BEAT,
        {"role": "user", "content": "那把伞呢？"},
    ]
    turns = story_turns(messages)
    assert [(t.role, t.text) for t in turns] == [
        ("assistant", "客官里边请。"),
        ("user", "掌柜可还记得怀瑾？"),
        ("assistant", "青梧放下算盘。她望向那把旧伞。"),
        ("user", "那把伞呢？"),
    ]


def test_a_fork_handed_to_the_user_stays_in_the_story() -> None:
    messages = [
        {"role": "user", "content": "接下来怎么办？"},
        calls(
            ("a", "ask", {"question": "你要在听雨轩住几日？", "options": ["一日", "住到雨停"]}), text="青梧抬眼看你。"
        ),
        result("a", "已把这个岔口交给用户"),
        {"role": "user", "content": "用户已作答：「住到雨停」。"},
    ]
    turns = story_turns(messages)
    assert turns[1].text == "青梧抬眼看你。\n\n【岔口】你要在听雨轩住几日？（一日／住到雨停）"
    assert turns[2].text == "用户已作答：「住到雨停」。"


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    return seeded


def test_assemble_with_a_chat_uses_its_story(home: Home, capsys: pytest.CaptureFixture[str]) -> None:
    chat = ChatFile.create(home.card_dir("青梧") / "chats", card="青梧", mode="stage")
    chat.append_message({"role": "assistant", "content": "客官里边请。", "tags": ["greeting"]})
    chat.append_message({"role": "user", "content": "掌柜可还记得怀瑾？"})
    for message in SEALED_BEAT:
        chat.append_message(message)
    capsys.readouterr()
    main(["stage", "assemble", "--card", "青梧", "--chat", chat.chat_id, "--message", "那把伞呢？", "--json"])
    data = json.loads(capsys.readouterr().out)
    # (The small-model profile: the lore the scan hit is a system note just before the new words.)
    roles = [(m["role"], m["content"]) for m in data["messages"][:-1] if m["role"] != "system"]
    assert roles == [
        ("assistant", "客官里边请。"),
        ("user", "掌柜可还记得怀瑾？"),
        ("assistant", "青梧放下算盘。她望向那把旧伞。"),
    ]
    assert data["messages"][-1]["content"].endswith("那把伞呢？")
    assert "我先查一下" not in json.dumps(data, ensure_ascii=False)


def test_created_agents_file_replaces_the_projection_without_losing_anything(home: Home) -> None:
    materials = load_stage_materials(home, "青梧")
    assert create_agents_file(materials) is True
    assert create_agents_file(load_stage_materials(home, "青梧")) is False
    text = (home.card_dir("青梧") / AGENTS_FILE).read_text(encoding="utf-8")
    entries = parse_entries(text)
    assert any(e.source == "card" for e in entries) and any(e.source == "lorebook" for e in entries)
    after = load_stage_materials(home, "青梧")
    from peargarden.stage import build_system_prompt

    prompt = build_system_prompt(after.files, after.card, user_name="旅人", lore=after.corpus.constants).text
    assert "# 你扮演的角色" not in prompt and "# 世界设定（常驻事实）" not in prompt
    assert "## 性格（角色卡）" in prompt and "（世界书·栖水镇）" in prompt
    assert materials.card.personality.strip()[:10] in prompt
