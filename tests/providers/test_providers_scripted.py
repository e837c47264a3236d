"""The scripted provider replays turns in order and records what it was asked."""

from __future__ import annotations

import threading

import pytest

from peargarden.errors import ProviderError
from peargarden.providers.base import ChatRequest, Done, TextDelta, ThinkingDelta, ToolCall, Usage
from peargarden.providers.scripted import ScriptedProvider, ScriptedTurn, text_turn, tool_turn


def _request(text: str) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], model="scripted")


def test_replays_turns_in_order_and_records_requests() -> None:
    call = ToolCall(id="c1", name="lorebook_search", arguments='{"query": "青梧"}')
    provider = ScriptedProvider().add(
        ScriptedTurn(thinking=["想一想"], text=["你好", "，旅人"], usage=Usage(12, 3)),
        tool_turn(call),
    )
    request = _request("青梧是谁？")
    first = list(provider.stream(request))
    request.messages.append({"role": "assistant", "content": "改动"})
    second = list(provider.stream(_request("再说")))

    assert first == [
        ThinkingDelta("想一想"),
        TextDelta("你好"),
        TextDelta("，旅人"),
        Usage(12, 3),
        Done("stop", "scripted"),
    ]
    assert second == [call, Done("tool_calls", "scripted")]
    assert [r.messages[-1]["content"] for r in provider.requests] == ["青梧是谁？", "再说"]
    assert provider.remaining == 0


def test_raises_when_script_runs_out_or_turn_fails() -> None:
    provider = ScriptedProvider().add(ScriptedTurn(text=["半句"], raise_error=ProviderError("连接断开"), raise_after=1))
    stream = provider.stream(_request("一"))
    assert next(stream) == TextDelta("半句")
    with pytest.raises(ProviderError, match="连接断开"):
        next(stream)
    with pytest.raises(ProviderError, match="no turn left"):
        list(provider.stream(_request("二")))
    assert len(provider.requests) == 2


def test_cancel_between_events_ends_with_aborted() -> None:
    cancel = threading.Event()
    provider = ScriptedProvider(on_event=lambda event: cancel.set()).add(text_turn("春", "夏", "秋"))
    events = list(provider.stream(_request("四季"), cancel))
    assert events == [TextDelta("春"), Done("aborted", "scripted")]
