"""TavernHelper's variable macros and which message's variables they read."""

from __future__ import annotations

import pytest

from peargarden.variables.history import variables_at
from peargarden.variables.macros import expand_variable_macros, format_variable_text

STATE = {"stat_data": {"小梨": {"好感度": [10, "0~100"], "$内部": 1, "物品": ["折扇"]}, "名字": "小梨"}}


def test_get_gives_strings_bare_and_the_rest_as_json_without_dollar_keys() -> None:
    text = "{{get_message_variable::stat_data.名字}}|{{get_message_variable::stat_data.小梨}}|{{get_chat_variable::x}}"
    assert expand_variable_macros(text, {"message": STATE, "chat": {}}) == (
        '小梨|{"好感度":[10,"0~100"],"物品":["折扇"]}|null'
    )


def test_format_indents_under_the_text_before_it_on_its_line() -> None:
    text = "状态：\n  小梨: {{format_message_variable::stat_data.小梨}}\n尾"
    assert expand_variable_macros(text, {"message": STATE}) == (
        "状态：\n  小梨: 好感度:\n        - 10\n        - 0~100\n      物品:\n        - 折扇\n尾"
    )


def test_two_format_macros_on_one_line_indent_by_the_expanded_prefix() -> None:
    text = "{{format_message_variable::stat_data.名字}} {{format_message_variable::stat_data.小梨.物品}}"
    assert expand_variable_macros(text, {"message": STATE}) == "小梨 - 折扇"
    # the indent counts UTF-16 units, as JavaScript's length does: 😀 is two
    assert format_variable_text(["甲", "乙"], "前缀😀") == "- 甲\n    - 乙"


def test_html_entities_in_the_path_are_unescaped() -> None:
    state = {"a&b": 1}
    assert expand_variable_macros("{{get_message_variable::a&amp;b}}", {"message": state}) == "1"


def test_variables_at_reads_the_current_swipe_and_defaults_to_the_last_message_with_one() -> None:
    chat = [
        {"swipe_id": 0, "variables": [{"stat_data": {"好感度": 10}}]},
        {"is_user": True, "variables": [{"stat_data": {"好感度": 10}}]},
        {"swipe_id": 1, "variables": [{"stat_data": {"好感度": 15}}, {"stat_data": {"好感度": 12}}]},
        {"swipe_id": 2, "variables": [{"stat_data": {"好感度": 1}}]},
    ]
    assert variables_at(chat, 2) == {"stat_data": {"好感度": 12}}
    assert variables_at(chat, 3) == {}
    assert variables_at(chat, -2) == {"stat_data": {"好感度": 12}}
    assert variables_at(chat) == {"stat_data": {"好感度": 12}}
    with pytest.raises(IndexError):
        variables_at(chat, 9)
