"""Pure pieces of the OpenAI-compatible provider: think-tag splitting, tool-call accumulation, profiles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peargarden.errors import BadInput
from peargarden.providers._failures import retry_after
from peargarden.providers._think_tags import ThinkTagSplitter
from peargarden.providers._tool_calls import ToolCallAccumulator
from peargarden.providers.base import ToolCall
from peargarden.providers.profiles import detect_profile


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces, start = [], 0
    for point in points:
        pieces.append(text[start:point])
        start = point
    pieces.append(text[start:])
    return pieces


def _run(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    out = [p for chunk in pieces for p in splitter.feed(chunk)] + splitter.flush()
    return (
        "".join(t for k, t in out if k == "thinking"),
        "".join(t for k, t in out if k == "text"),
    )


@given(st.lists(st.integers(min_value=0, max_value=200), max_size=12))
def test_think_tags_survive_any_chunking(cuts: list[int]) -> None:
    content = "<think>她在想：<b>琴</b> 还是 </thin 剑？</think>「走吧。」<thinking 不是标签"
    assert _run(_split(content, cuts)) == (
        "她在想：<b>琴</b> 还是 </thin 剑？",
        "「走吧。」<thinking 不是标签",
    )


def test_unclosed_think_stays_thinking_and_partial_tag_is_flushed() -> None:
    assert _run(["<think>还没想完"]) == ("还没想完", "")
    assert _run(["结尾是 <thi"]) == ("", "结尾是 <thi")


def test_tool_calls_without_index_are_told_apart_by_id() -> None:
    acc = ToolCallAccumulator()
    acc.add(None, "a", "search", '{"q": "甲"}')
    acc.add(None, "b", "search", '{"q": ')
    acc.add(None, None, None, '"乙"}')
    assert acc.finish() == [ToolCall("a", "search", '{"q": "甲"}'), ToolCall("b", "search", '{"q": "乙"}')]
    assert not acc


def test_tool_call_without_id_gets_one() -> None:
    acc = ToolCallAccumulator()
    acc.add(0, None, "search", "{}")
    assert acc.finish() == [ToolCall("call_0", "search", "{}")]


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("https://api.openai.com/v1", "openai"),
        ("https://api.deepseek.com/v1", "deepseek"),
        ("https://openrouter.ai/api/v1", "openrouter"),
        ("http://localhost:11434/v1", "ollama"),
        ("http://127.0.0.1:8080/v1", "llamacpp"),
        ("http://vllm.internal:8000/v1", "vllm"),
        ("http://127.0.0.1:9999/v1", "generic"),
    ],
)
def test_profile_from_base_url(base_url: str, expected: str) -> None:
    assert detect_profile(base_url).name == expected


def test_named_profile_wins_and_unknown_is_bad_input() -> None:
    assert detect_profile("http://127.0.0.1:9999/v1", name="DeepSeek").name == "deepseek"
    with pytest.raises(BadInput, match="unknown provider profile"):
        detect_profile("http://x/v1", name="梨园")


@pytest.mark.parametrize(
    ("profile", "level", "model", "fields"),
    [
        ("openai", "high", "o4-mini", {"reasoning_effort": "high"}),
        ("openai", "xhigh", "gpt-5.2", {"reasoning_effort": "xhigh"}),
        ("openai", "xhigh", "gpt-5", {"reasoning_effort": "high"}),
        ("openai", "medium", "gpt-4o", {}),
        ("deepseek", "low", "deepseek-chat", {"thinking": {"type": "enabled"}}),
        ("deepseek", "off", "deepseek-chat", {"thinking": {"type": "disabled"}}),
        ("deepseek", "off", "deepseek-reasoner", {}),
        ("openrouter", "minimal", "x", {"reasoning": {"effort": "minimal"}}),
        ("openrouter", "off", "x", {}),
        ("ollama", "xhigh", "qwen3", {"reasoning_effort": "high"}),
        ("vllm", "off", "qwen3", {"chat_template_kwargs": {"enable_thinking": False}}),
        (
            "llamacpp",
            "minimal",
            "qwen3",
            {"chat_template_kwargs": {"enable_thinking": True}, "reasoning_effort": "low"},
        ),
        ("generic", "off", "m", {}),
    ],
)
def test_thinking_level_mapping(profile: str, level: str, model: str, fields: dict[str, object]) -> None:
    assert detect_profile("http://x/v1", name=profile).thinking_fields(level, model) == fields  # type: ignore[arg-type]


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0) == 10.0
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None
