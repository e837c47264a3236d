"""The stage's way with an MVU card (``modes/stage/variables.py``): the variables shown as the card's
macro shows them, the ``[mvu_update]`` rules turned into the ``variables_update`` tool's guidance, a
JSON Patch through the tool, an ``<UpdateVariable>`` block the model still writes applied and
stripped, and with thinking off the side model doing the update after the beat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peargarden.agent.events import TextDeltaEvent
from peargarden.app.library.imports import import_files
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.providers.base import ToolCall
from peargarden.providers.scripted import ScriptedProvider, text_turn, tool_turn
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CASE = Path(__file__).parents[1] / "variables" / "mvu_e2e" / "02-classic-mvu-extensible"
RULES = "变量更新规则：每次回复末尾输出"


@pytest.fixture
def home(home_dir: Path) -> Home:
    seeded = Home(home_dir)
    seed_home(seeded)
    import_files(seeded, [CASE / "card.json"], book="mount", card=None)
    import_files(seeded, [CASE / "小梨变量书.json"], book="mount", card="小梨")
    return seeded


def _chat(home: Home, provider: ScriptedProvider, thinking: str = "medium") -> ChatSession:
    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, thinking)

    app = PearApp(home, provider_factory=factory, story_memory=False)
    return app.new_chat("小梨", ChatOptions(mode="stage", thinking=thinking))


def _stat(chat: ChatSession) -> dict[str, Any]:
    record = chat.variables().in_force()
    assert record is not None
    return dict(record["stat_data"])


def _system(provider: ScriptedProvider, index: int = 0) -> str:
    return str(provider.requests[index].messages[0]["content"])


def test_the_tool_carries_the_rules_and_its_patch_becomes_the_replys_variables(home: Home) -> None:
    patch = [{"op": "delta", "path": "/金钱", "value": -20}, {"op": "add", "path": "/小梨/物品/-", "value": "笛子"},
             {"op": "replace", "path": "/世界/地点", "value": "后台"}]  # fmt: skip
    call = ToolCall("c1", "variables_update", json.dumps({"patch": patch, "reason": "买笛子"}, ensure_ascii=False))
    provider = ScriptedProvider().add(tool_turn(call), text_turn("小梨捧着新笛子，笑得眯起了眼。"))
    chat = _chat(home, provider)
    events = list(chat.send("这支笛子送你。"))
    first = provider.requests[0]
    tool = next(spec for spec in first.tools if spec.name == "variables_update")
    assert RULES in tool.description  # the [mvu_update] entry is the tool's guidance …
    assert RULES not in _system(provider)  # … and no longer lore the model reads as text rules
    # The card's own entry shows the variables (TavernHelper's macro, expanded): no second block.
    assert "{{format_message_variable" not in _system(provider) and _system(provider).count("金钱: 100") == 1
    tool_result = provider.requests[1].messages[-1]["content"]
    assert "金钱: 100->80" in tool_result
    stat = _stat(chat)
    assert stat["金钱"] == 80 and stat["小梨"]["物品"] == ["折扇", "茶壶", "笛子"] and stat["世界"]["地点"] == "后台"
    shown = chat.view().rows[-1]
    assert "<UpdateVariable>" not in shown.content and shown.variables is not None
    assert not [e for e in events if getattr(e, "type", "") == "error"]


def test_an_update_block_the_model_still_writes_is_applied_and_stripped(home: Home) -> None:
    reply = "小梨接过茶。\n\n<UpdateVariable>\n_.set('小梨.心情', '开心');//喝茶\n_.add('金钱', -5);\n</UpdateVariable>"
    provider = ScriptedProvider().add(text_turn(reply), text_turn("小梨点点头。"))
    chat = _chat(home, provider)
    streamed = "".join(event.text for event in chat.send("喝茶吗？") if isinstance(event, TextDeltaEvent))
    assert streamed.startswith("小梨接过茶。") and "UpdateVariable" not in streamed and "_.set" not in streamed
    assert _stat(chat)["小梨"]["心情"] == "开心" and _stat(chat)["金钱"] == 95
    row = chat.view().rows[-1]
    assert "<UpdateVariable>" not in row.content and row.content.startswith("小梨接过茶。")
    assert chat.chat.tree.messages()[-1].message["content"] == reply  # the model's words are kept
    list(chat.send("那走吧。"))
    history = provider.requests[1].messages
    assert all("<UpdateVariable>" not in str(m.get("content")) for m in history[1:])  # not sent back either
    assert "金钱: 95" in _system(provider, 1)
    exported = chat.export_sillytavern().decode("utf-8")
    assert "_.set(" not in exported.split("\n")[3]  # the reply's line in the SillyTavern file


def test_with_thinking_off_the_side_model_updates_after_the_beat(home: Home) -> None:
    patch = '[{"op":"replace","path":"/小梨/心情","value":"害羞"}]'
    side = f"<UpdateVariable><JSONPatch>{patch}</JSONPatch></UpdateVariable>"
    provider = ScriptedProvider().add(text_turn("小梨红了脸，低头不语。"), text_turn(side))
    chat = _chat(home, provider, thinking="off")
    beat = chat.play("send", "小梨今天真好看。")
    list(beat)
    assert not provider.requests[0].tools or all(t.name != "variables_update" for t in provider.requests[0].tools)
    assert [sent.purpose for sent in beat.result.requests] == ["beat", "variables"]
    assert "【当前变量】" in str(provider.requests[1].messages[1]["content"])
    assert _stat(chat)["小梨"]["心情"] == "害羞"
