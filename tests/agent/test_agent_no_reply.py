"""A round with no words (issue 32, point 4): a reply that is only reasoning and an empty reply follow
one rule — an error with a clear line, and no empty assistant message in the chat — whichever provider
sent it; a reply of reasoning plus a tool call is a reply."""

from __future__ import annotations

from typing import Any

import pytest

from peargarden.agent.events import DoneEvent, ErrorEvent
from peargarden.agent.loop import BeatInput, BeatSettings, run_beat
from peargarden.providers.base import ChatRequest, ToolCall
from peargarden.providers.scripted import ScriptedProvider, ScriptedTurn
from peargarden.sessions.context import ContextMessage


def _play(turn: ScriptedTurn, **options: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    recorded: list[dict[str, Any]] = []

    def record(message: dict[str, Any]) -> str:
        recorded.append(message)
        return f"e{len(recorded)}"

    def builder(beat: BeatInput) -> ChatRequest:
        return ChatRequest(messages=[m.to_openai() for m in beat.history])

    settings = BeatSettings(provider=ScriptedProvider([turn]), builder=builder, record=record, **options)
    events = list(run_beat([ContextMessage("user", "掌柜，还有空房吗？")], settings))
    return events, recorded


@pytest.mark.parametrize(
    ("turn", "words"),
    [
        (ScriptedTurn(thinking=["客人问房间，先想想楼上还空着哪间。"]), "reasoning only, stop_reason=stop"),
        (ScriptedTurn(thinking=["想了很久……"], stop_reason="length"), "思考用完了输出长度"),
        (ScriptedTurn(), "empty reply, stop_reason=stop"),
        (ScriptedTurn(text=["\n", "  "]), "empty reply"),
        (ScriptedTurn(thinking=["想"], text=["\n"]), "reasoning only"),
    ],
    ids=["reasoning-only", "reasoning-ran-out", "empty", "whitespace", "reasoning-and-whitespace"],
)
def test_no_words_is_an_error_and_nothing_is_recorded(turn: ScriptedTurn, words: str) -> None:
    events, recorded = _play(turn)
    errors = [e.message for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and words in errors[0] and "\n" not in errors[0]
    assert isinstance(events[-1], DoneEvent) and events[-1].stop_reason == "error"
    assert recorded == []


def test_a_continue_that_adds_nothing_keeps_the_reply_as_it_was() -> None:
    events, recorded = _play(ScriptedTurn(thinking=["接着想"]), continue_prefix="客官楼上请。")
    assert recorded == [] and events[-1].stop_reason == "error"


def test_reasoning_with_a_tool_call_is_a_reply() -> None:
    call = ToolCall(id="c1", name="lore_lookup", arguments='{"title": "听雨轩"}')
    events, recorded = _play(ScriptedTurn(thinking=["先查听雨轩。"], tool_calls=[call]), max_rounds=1)
    assert recorded and recorded[0]["reasoning"] == "先查听雨轩。" and recorded[0]["tool_calls"]
    assert not any(isinstance(e, ErrorEvent) for e in events)


def test_an_interrupted_round_of_reasoning_only_is_not_recorded() -> None:
    events, recorded = _play(ScriptedTurn(thinking=["想到一半"], stop_reason="aborted"))
    assert recorded == [] and events[-1].stop_reason == "aborted"
