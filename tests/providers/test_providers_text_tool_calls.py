"""Tool calls written as text by a local model (Qwen2.5's <tool_call> tags, fenced JSON)."""

from __future__ import annotations

import json

from peargarden.providers._text_tool_calls import split_tool_calls, streamable
from peargarden.providers.base import ToolCall

TOOLS = {"lorebook_search", "draft_write"}


def test_qwen_tool_call_tags_become_calls_with_chinese_arguments() -> None:
    text = (
        "让我查一下设定。\n"
        '<tool_call>\n{"name": "lorebook_search", "arguments": {"query": "怀瑾 镇北渡口"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "draft_write", "arguments": {"text": "青梧抬起眼。\\n“客官请坐。”"}}\n</tool_call>'
    )
    rest, calls = split_tool_calls(text, TOOLS)
    assert rest == "让我查一下设定。"
    assert [c.name for c in calls] == ["lorebook_search", "draft_write"]
    assert [c.id for c in calls] == ["call_text_0", "call_text_1"]
    assert json.loads(calls[0].arguments) == {"query": "怀瑾 镇北渡口"}
    assert "怀瑾" in calls[0].arguments  # kept readable, not \\u-escaped
    assert json.loads(calls[1].arguments) == {"text": "青梧抬起眼。\n“客官请坐。”"}


def test_a_fenced_json_object_naming_an_offered_tool_is_a_call() -> None:
    text = '好的。\n```json\n{"name": "lorebook_search", "arguments": {"query": "旧油纸伞"}}\n```\n'
    rest, calls = split_tool_calls(text, TOOLS)
    assert rest == "好的。"
    assert calls == [ToolCall("call_text_0", "lorebook_search", '{"query": "旧油纸伞"}')]


def test_string_arguments_and_parameters_key_are_accepted() -> None:
    text = '<tool_call>{"name": "lorebook_search", "arguments": "{\\"query\\": \\"柳树\\"}"}</tool_call>'
    assert split_tool_calls(text, TOOLS)[1][0].arguments == '{"query": "柳树"}'
    fenced = '```\n{"name": "draft_write", "parameters": {"text": "雨停了。"}}\n```'
    assert json.loads(split_tool_calls(fenced, TOOLS)[1][0].arguments) == {"text": "雨停了。"}


def test_a_call_cut_off_by_the_end_of_the_reply_still_parses_when_its_json_is_whole() -> None:
    rest, calls = split_tool_calls('<tool_call>\n{"name": "lorebook_search", "arguments": {"query": "周伯"}}', TOOLS)
    assert rest == "" and calls[0].name == "lorebook_search"


def test_malformed_json_stays_text_and_is_never_a_call() -> None:
    for text in (
        '<tool_call>{"name": "lorebook_search", "arguments": {"query": "怀瑾"</tool_call>',  # truncated
        "<tool_call>lorebook_search(query='怀瑾')</tool_call>",  # not JSON
        '<tool_call>{"arguments": {"query": "怀瑾"}}</tool_call>',  # no name
        '<tool_call>["lorebook_search"]</tool_call>',  # not an object
        '<tool_call>{"name": "lorebook_search", "arguments": 3}</tool_call>',  # arguments of no shape
        "```json\n{name: 'lorebook_search'}\n```",
    ):
        assert split_tool_calls(text, TOOLS) == (text, []), text


def test_fenced_json_of_a_tool_not_offered_is_story_text() -> None:
    text = '掌柜递来一张纸：\n```json\n{"name": "听雨轩", "arguments": {"房": "东头"}}\n```'
    assert split_tool_calls(text, TOOLS) == (text, [])


def test_plain_text_is_untouched() -> None:
    text = "“楼上东头那间临河，被褥今早才烘过。”"
    assert split_tool_calls(text, TOOLS) == (text, [])


def test_streamable_holds_back_from_a_marker_or_its_beginning() -> None:
    assert streamable("青梧点点头。") == len("青梧点点头。")
    assert streamable("青梧点点头。<tool_call>{") == len("青梧点点头。")
    assert streamable("青梧点点头。<tool") == len("青梧点点头。")
    assert streamable("好。``") == len("好。")
    assert streamable("好。```json") == len("好。")
    assert streamable("") == 0
