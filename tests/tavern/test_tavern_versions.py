"""The SillyTavern 1.18 switches that no oracle case exercises, each checked against 1.12."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace
from tavern_builders import StateFactory, alternating_chat

from peargarden.errors import BadInput
from peargarden.tavern.assemble import generate
from peargarden.tavern.state import TavernState
from peargarden.tavern.version import case_version, for_version, normalize_version


def _as(state: TavernState, version: str) -> TavernState:
    state.compat = for_version(version, state.power_user)
    return state


def _contents(state: TavernState, gen_type: str = "normal") -> list[str]:
    return [m["content"] for m in generate(state, gen_type, dry_run=True).messages]


def _book(*entries: dict[str, Any]) -> dict[str, Any]:
    base = {"probability": 100, "useProbability": True, "order": 100, "position": 0, "key": []}
    return {"entries": {str(i): {"uid": i, **base, **e} for i, e in enumerate(entries)}}


def test_versions_are_named_and_bad_ones_refused() -> None:
    assert normalize_version("1.18.0") == "1.18" and normalize_version(1.12) == "1.12"
    assert case_version({"sillytavern": {"version": "1.18.0"}}) == "1.18"
    assert case_version({}) == "1.12"
    with pytest.raises(BadInput, match=r"1\.9"):
        normalize_version("1.9")
    # The macro engine follows SillyTavern's own setting when a 1.18 install names it.
    assert for_version("1.18").new_macro_engine
    assert not for_version("1.18", {"experimental_macro_engine": False}).new_macro_engine
    assert not for_version("1.12", {"experimental_macro_engine": True}).new_macro_engine


def test_persona_lorebook_is_scanned_first_after_the_chat_book(make_state: StateFactory) -> None:
    worlds = {"摄影师的书": _book({"key": ["龙井"], "content": "【人设书】小明爱喝龙井。"})}
    chat = [
        *alternating_chat(3),
        {"name": "小明", "is_user": True, "is_system": False, "mes": "来一壶龙井", "extra": {}},
    ]
    state = make_state(chat, power_user={"persona_description_lorebook": "摄影师的书"}, worlds=worlds)
    assert "【人设书】小明爱喝龙井。" in _contents(_as(state, "1.18"))
    state = make_state(chat, power_user={"persona_description_lorebook": "摄影师的书"}, worlds=worlds)
    assert "【人设书】小明爱喝龙井。" not in _contents(_as(state, "1.12"))


def test_chat_metadata_overrides_examples_and_system_prompt(make_state: StateFactory) -> None:
    metadata = {
        "mes_example": "<START>\n{{user}}: 这盏灯是谁的？\n{{char}}: 是我母亲留下的。",
        "system_prompt": "本段对话：{{char}}只说真话。",
    }
    new = _contents(_as(make_state(metadata=metadata), "1.18"))
    assert "这盏灯是谁的？" in new and "本段对话：林月只说真话。" in new
    old = _contents(_as(make_state(metadata=metadata), "1.12"))
    assert "这盏灯是谁的？" not in old and "你推荐什么茶？" in old


def test_outlet_entries_feed_the_outlet_macro(make_state: StateFactory) -> None:
    worlds = {"出口": _book({"constant": True, "position": 7, "outletName": "天气", "content": "今夜有雨。"})}
    oai_prompts = {
        "prompts": [
            {"identifier": "main", "role": "system", "content": "主提示。天气：{{outlet::天气}}"},
        ]
    }
    wi = {"world_info": {"globalSelect": ["出口"]}}
    state = _as(make_state(oai=oai_prompts, worlds=worlds, wi=wi), "1.18")
    # The scan fills the outlet before the Prompt Manager substitutes the prompts' macros.
    assert "主提示。天气：今夜有雨。" in _contents(state)
    old = _as(make_state(oai=oai_prompts, worlds=worlds, wi=wi), "1.12")
    assert "主提示。天气：{{outlet::天气}}" in _contents(old)


def test_empty_formats_and_bias_role(make_state: StateFactory) -> None:
    oai = {"scenario_format": "", "personality_format": ""}
    new = _contents(_as(make_state(oai=oai), "1.18"))
    assert "小明在一个下雨的午后走进了林月的茶馆。" in new and "温柔，细心，有点爱开玩笑" in new
    old = _contents(_as(make_state(oai=oai), "1.12"))
    assert not any("下雨的午后" in c for c in old[:6])
    state = _as(make_state(power_user={"user_prompt_bias": "林月笑着说："}), "1.18")
    assert generate(state, "normal", dry_run=True).messages[-1] == {"role": "assistant", "content": "林月笑着说："}
    state = _as(make_state(power_user={"user_prompt_bias": "林月笑着说："}), "1.12")
    assert generate(state, "normal", dry_run=True).messages[-1] == {"role": "system", "content": "林月笑着说："}


def test_card_system_prompt_needs_main_switched_on_in_118(make_state: StateFactory) -> None:
    card: dict[str, Any] = {
        "name": "林月",
        "description": "茶馆老板。",
        "data": {"name": "林月", "system_prompt": "卡片系统提示", "extensions": {}},
    }
    order = [
        {
            "character_id": 100001,
            "order": [{"identifier": "main", "enabled": False}, {"identifier": "chatHistory", "enabled": True}],
        }
    ]
    assert "卡片系统提示" in _contents(_as(make_state(card=card, oai={"prompt_order": order}), "1.12"))
    assert "卡片系统提示" not in _contents(_as(make_state(card=card, oai={"prompt_order": order}), "1.18"))


def test_injection_order_puts_the_lower_order_higher_up(make_state: StateFactory) -> None:
    prompts = [
        {"identifier": "main", "role": "system", "content": "主提示"},
        {"identifier": "甲", "role": "system", "content": "【甲 order 50】", "injection_position": 1,
         "injection_depth": 1, "injection_order": 50, "system_prompt": False},
        {"identifier": "乙", "role": "system", "content": "【乙 order 200】", "injection_position": 1,
         "injection_depth": 1, "injection_order": 200, "system_prompt": False},
    ]  # fmt: skip
    order = [
        {
            "character_id": 100001,
            "order": [{"identifier": i, "enabled": True} for i in ("main", "甲", "乙", "chatHistory")],
        }
    ]
    new = _contents(_as(make_state(oai={"prompts": prompts, "prompt_order": order}), "1.18"))
    assert new.index("【甲 order 50】") < new.index("【乙 order 200】")
    old = _contents(_as(make_state(oai={"prompts": prompts, "prompt_order": order}), "1.12"))
    assert "【甲 order 50】\n【乙 order 200】" in old  # 1.12: one message per role and depth


def test_a_switch_can_be_flipped_alone(make_state: StateFactory) -> None:
    state = _as(make_state(oai={"scenario_format": ""}), "1.12")
    state.compat = replace(state.compat, empty_format_keeps_text=True)
    assert "小明在一个下雨的午后走进了林月的茶馆。" in _contents(state)


def test_relative_prompts_follow_an_in_chat_main_in_118(make_state: StateFactory) -> None:
    prompts = [{"identifier": "main", "role": "system", "content": "主提示在聊天里", "injection_position": 1,
                "injection_depth": 1}]  # fmt: skip
    metadata = {"note_prompt": "【作者注】雨停了", "note_position": 0, "note_interval": 1}
    new = _contents(_as(make_state(oai={"prompts": prompts}, metadata=metadata), "1.18"))
    # One in-chat message: main, then the note placed "after main" (same role, depth and order).
    assert "主提示在聊天里\n【作者注】雨停了" in new
    old_state = _as(make_state(oai={"prompts": prompts}, metadata=metadata), "1.12")
    result = generate(old_state, "normal", dry_run=True)
    assert any("main" in w for w in result.warnings)  # 1.12 has no main slot to put the note in


def test_118_with_the_new_engine_off_runs_its_own_legacy_variant(make_state: StateFactory) -> None:
    prompts = [{"identifier": "main", "role": "system", "content": "心情：{{setvar::心情::平静}}{{getvar::心情}}"}]
    off = {"experimental_macro_engine": False}
    state = _as(make_state(oai={"prompts": prompts}, power_user=off), "1.18")
    assert not state.compat.new_macro_engine
    assert "心情：平静" in _contents(state)  # 1.18's legacy pipeline sets before it gets
    old = _as(make_state(oai={"prompts": prompts}, power_user=off), "1.12")
    assert "心情：" in _contents(old)  # 1.12 reads the line before the set on it
