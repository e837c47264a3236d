"""Two real zod-schema MVU cards (lide4144/sillytavern-character-cards: 修女与女忍的双面日常 and 爱) played
in tavern mode against the fake OpenAI server, with replies in their own dialect: their schema scripts
run here (the `await import()` of mvu_zod.js with a fallback, `$(() => registerMvuSchema(...))`, static
`import … from` with `export const`), clamps and coercions apply, an invalid enum value is refused,
and 爱's EJS phase guidance follows the phase.  Third-party files: the test skips without them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kit.mvu_chats import card_home, played
from kit.thirdparty import thirdparty
from peargarden.app.play.service import ChatSession
from peargarden.testing.fake_openai import FakeOpenAIServer

PRESET = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "01-minimal-classic-mvu" / "preset.json"


def _play(home_dir: Path, files: list[Path], replies: list[str]) -> Iterator[tuple[ChatSession, FakeOpenAIServer]]:
    name = json.loads(files[0].read_text(encoding="utf-8"))["data"]["name"]
    preset = json.loads(PRESET.read_text(encoding="utf-8"))
    preset["openai_max_context"] = 64000  # room for the cards' constant entries in the world-info budget
    preset_bytes = json.dumps(preset, ensure_ascii=False).encode("utf-8")
    home = card_home(home_dir, files[0], files[1:], name, {"userName": "User", "regex_allowed": True}, preset_bytes)
    yield from played(home, name, replies)


def _stat(chat: ChatSession, message: int) -> dict[str, Any]:
    record = chat.variables().messages[message].current
    assert record is not None and record["schema"] == "没有用别管这个" and "display_data" not in record
    return dict(record["stat_data"])


NUN_REPLIES = [
    "你把礼拜堂扫得一尘不染。\n<UpdateVariable>\n<JSONPatch>\n"
    '[{"op":"replace","path":"/教堂/民声","value":150},{"op":"delta","path":"/教堂/持有资金","value":"12"},'
    '{"op":"add","path":"/任务/夜袭山寨","value":{"委托方":"月影阁","败北值":"130"}},'
    '{"op":"add","path":"/近期事件/-","value":"打扫礼拜堂"}]\n</JSONPatch>\n</UpdateVariable>',
    "夜里你换上了忍装。\n<UpdateVariable>\n<JSONPatch>\n"
    '[{"op":"move","from":"/任务/夜袭山寨","path":"/任务/潜入宅邸"},{"op":"replace","path":"/莉莉安/体力","value":-20},'
    '{"op":"remove","path":"/近期事件/0"},{"op":"replace","path":"/环境/时段","value":3}]\n</JSONPatch>\n</UpdateVariable>',
]


@pytest.fixture
def nun(home_dir: Path) -> Iterator[tuple[ChatSession, FakeOpenAIServer]]:
    files = [thirdparty("lide_nun_ninja_card.json"), thirdparty("lide_nun_ninja_worldbook.json")]
    yield from _play(home_dir, files, NUN_REPLIES)


def test_the_nun_and_ninja_cards_schema_clamps_and_refuses(nun: tuple[ChatSession, FakeOpenAIServer]) -> None:
    chat, _ = nun
    seed = _stat(chat, 0)
    assert seed["教堂"]["民声"] == 15 and seed["任务"] == {} and seed["近期事件"] == []
    list(chat.play("send", "我去打扫礼拜堂。"))
    first = _stat(chat, 2)
    assert first["教堂"]["民声"] == 100 and first["教堂"]["持有资金"] == seed["教堂"]["持有资金"] + 12
    task = first["任务"]["夜袭山寨"]
    assert task["败北值"] == 100 and task["委托方"] == "月影阁" and task["难度"] == "普通"  # clamped, defaulted
    assert first["近期事件"] == ["打扫礼拜堂"]
    events = list(chat.play("send", "出发。"))
    second = _stat(chat, 4)
    assert list(second["任务"]) == ["潜入宅邸"] and second["莉莉安"]["体力"] == 0 and second["近期事件"] == []
    assert second["环境"]["时段"] == first["环境"]["时段"]  # a number where the schema wants a string: refused
    warnings = [str(e.message) for e in events if getattr(e, "type", "") == "warning"]
    assert any("环境.时段" in w and "expected string" in w for w in warnings), warnings


AI_REPLIES = [
    "沈念冲你眨眨眼。\n<UpdateVariable>\n_.set('系统.当前阶段', '损友成型');//关系推进\n"
    "_.set('小穗.觉醒进度', '15');//字符串数字\n</UpdateVariable>",
    "夜色渐深。\n<UpdateVariable>\n<JSONPatch>"
    '[{"op":"replace","path":"/系统/当前阶段","value":"胡闹期"},{"op":"delta","path":"/小穗/觉醒进度","value":5}]'
    "</JSONPatch>\n</UpdateVariable>",
    "又是一天。",
]


@pytest.fixture
def ai(home_dir: Path) -> Iterator[tuple[ChatSession, FakeOpenAIServer]]:
    yield from _play(home_dir, [thirdparty("lide_ai_xianxia_card.json")], AI_REPLIES)


def test_the_ai_cards_enum_and_coerced_number_and_its_phase_template(ai: tuple[ChatSession, FakeOpenAIServer]) -> None:
    chat, fake = ai
    assert _stat(chat, 0)["系统"]["当前阶段"] == "磨合期"
    list(chat.play("send", "师妹，走吧。"))
    first = _stat(chat, 2)
    assert first["系统"]["当前阶段"] == "损友成型" and first["小穗"]["觉醒进度"] == 15
    events = list(chat.play("send", "然后呢？"))
    second = _stat(chat, 4)
    assert second["系统"]["当前阶段"] == "损友成型" and second["小穗"]["觉醒进度"] == 20
    warnings = [str(e.message) for e in events if getattr(e, "type", "") == "warning"]
    assert any("胡闹期" in w and "Invalid option" in w for w in warnings), warnings
    list(chat.play("send", "继续。"))
    # The EJS entry reads getvar('stat_data.系统.当前阶段'): the first request is in 磨合期, later ones not.
    first_request = json.dumps(fake.chat_requests[0].body["messages"], ensure_ascii=False)
    last_request = json.dumps(fake.chat_requests[2].body["messages"], ensure_ascii=False)
    assert "磨合期:" in first_request and "损友成型:" not in first_request
    assert "损友成型:" in last_request and "磨合期:" not in last_request
