"""The loop against the fake OpenAI-compatible server over real HTTP."""

from __future__ import annotations

import threading
from typing import Any

from peargarden.agent.events import AgentEvent
from peargarden.agent.loop import BeatInput, BeatSettings, run_beat
from peargarden.agent.tools import FunctionTool, ToolContext, ToolRegistry, ToolResult
from peargarden.providers.base import ChatRequest
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.sessions.context import ContextMessage
from peargarden.testing.fake_openai import (
    FakeOpenAIServer,
    chunk,
    sse,
    status,
    text_reply,
    tool_call_delta,
    usage_chunk,
)

LORE = {"听雨轩": "临河的茶楼，掌柜青梧。", "镇北渡口": "十年前怀瑾公子由此北上。"}


def _lookup(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    body = LORE.get(args["title"])
    if body is None:
        return ToolResult(f"没有名为「{args['title']}」的设定", is_error=True)
    return ToolResult(body, details={"title": args["title"]})


LOOKUP = FunctionTool(
    "lore_lookup",
    "按标题查设定",
    {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    _lookup,
    access="read",
)


def _builder(inp: BeatInput) -> ChatRequest:
    messages = [{"role": "system", "content": "你是青梧。"}] + [m.to_openai() for m in inp.history]
    return ChatRequest(messages=messages, tools=inp.tools)


def _provider(server: FakeOpenAIServer, profile: str = "generic") -> OpenAICompatProvider:
    return OpenAICompatProvider(server.base_url, "fake-model", "k", profile=profile, sleep=lambda _s: None)


def _call_reply(*calls: tuple[str, str, list[str]], reasoning: str | None = None) -> Any:
    """A streamed reply making tool calls; each call's argument text arrives in the given fragments."""
    items: list[Any] = [chunk(role="assistant", content="")]
    if reasoning:
        items.append(chunk(reasoning_content=reasoning))
    for index, (call_id, name, fragments) in enumerate(calls):
        items.append(chunk(tool_calls=[tool_call_delta(index, id=call_id, name=name, arguments="")]))
        items += [chunk(tool_calls=[tool_call_delta(index, arguments=piece)]) for piece in fragments]
    items += [chunk(finish_reason="tool_calls"), usage_chunk(20, 8)]
    return sse(*items)


def _run(settings: BeatSettings, history: list[ContextMessage]) -> tuple[list[AgentEvent], list[dict[str, Any]]]:
    recorded: list[dict[str, Any]] = []

    def record(message: dict[str, Any]) -> str:
        recorded.append(message)
        return f"e{len(recorded)}"

    settings.record = record
    return list(run_beat(history, settings)), recorded


USER = [ContextMessage("assistant", "客官里边请。"), ContextMessage("user", "掌柜可还记得镇北渡口？")]


def test_tool_loop_of_several_rounds_over_http(fake_server: FakeOpenAIServer) -> None:
    fake_server.script(
        [
            # CJK split inside the argument fragments, as real servers do.
            _call_reply(("c1", "lore_lookup", ['{"ti', 'tle": "镇北', '渡口"}'])),
            _call_reply(("c2", "lore_lookup", ['{"title": "听雨轩"}']), ("c3", "lore_lookup", ['{"title": "无名"}'])),
            text_reply("记得，", "怀瑾公子十年前由镇北渡口北上。"),
        ]
    )
    settings = BeatSettings(provider=_provider(fake_server), builder=_builder, tools=ToolRegistry([LOOKUP]))
    events, recorded = _run(settings, USER)

    kinds = [e.type for e in events]
    assert kinds.count("tool_start") == 3 and kinds.count("tool_end") == 3
    assert kinds[-1] == "done"
    done = events[-1].to_json()
    assert done["stop_reason"] == "stop" and done["rounds"] == 3
    assert done["usage"]["prompt_tokens"] == 20 + 20 + 10
    assert "".join(e.to_json().get("text", "") for e in events if e.type == "text_delta") == (
        "记得，怀瑾公子十年前由镇北渡口北上。"
    )
    assert [m["role"] for m in recorded] == ["assistant", "tool", "assistant", "tool", "tool", "assistant"]
    assert recorded[1]["content"] == LORE["镇北渡口"] and recorded[1]["details"] == {"title": "镇北渡口"}
    assert recorded[4]["is_error"] is True
    # The third request carries every earlier round: tool calls and their results, in order.
    third = fake_server.chat_requests[2].body["messages"]
    assert [m["role"] for m in third] == [
        "system",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
    ]
    assert third[3]["tool_calls"][0]["function"]["arguments"] == '{"title": "镇北渡口"}'
    assert third[4]["tool_call_id"] == "c1"
    assert fake_server.chat_requests[0].body["tools"][0]["function"]["name"] == "lore_lookup"


def test_reasoning_is_passed_back_within_the_beat(fake_server: FakeOpenAIServer) -> None:
    fake_server.script(
        [
            _call_reply(("c1", "lore_lookup", ['{"title": "听雨轩"}']), reasoning="先查听雨轩。"),
            text_reply("听雨轩临河。"),
        ]
    )
    settings = BeatSettings(
        provider=_provider(fake_server, "deepseek"),
        builder=_builder,
        tools=ToolRegistry([LOOKUP]),
        thinking="medium",
    )
    events, recorded = _run(settings, USER)
    assert [e.to_json()["text"] for e in events if e.type == "thinking_delta"] == ["先查听雨轩。"]
    assert recorded[0]["reasoning"] == "先查听雨轩。"
    second = fake_server.chat_requests[1].body
    assert second["messages"][3]["reasoning_content"] == "先查听雨轩。"
    assert second["thinking"] == {"type": "enabled"}


def test_provider_failure_ends_with_an_error_event(fake_server: FakeOpenAIServer) -> None:
    fake_server.script([status(500), status(502), status(503), status(500)])
    settings = BeatSettings(provider=_provider(fake_server), builder=_builder)
    events, recorded = _run(settings, USER)
    assert [e.type for e in events] == ["error", "done"]
    assert events[-1].to_json()["stop_reason"] == "error"
    assert recorded == []  # nothing half-made is kept; the caller's user message is untouched
    assert len(fake_server.chat_requests) == 4


def test_unauthorised_fails_without_retrying(fake_server: FakeOpenAIServer) -> None:
    fake_server.script([status(401)])
    events, _ = _run(BeatSettings(provider=_provider(fake_server), builder=_builder), USER)
    assert (events[0].type == "error" and "401" in events[0].to_json()["message"]) or "key" in events[0].to_json()[
        "message"
    ]
    assert len(fake_server.chat_requests) == 1


def test_truncated_tool_json_is_repaired_or_sent_back(fake_server: FakeOpenAIServer) -> None:
    fake_server.script(
        [
            # A cut-off object: repairable into {"title": "听雨轩"}.
            _call_reply(("c1", "lore_lookup", ['{"title": "听雨轩'])),
            # Cut before any value: nothing usable; the model is told to re-issue the call.
            _call_reply(("c2", "lore_lookup", ['{"tit'])),
            text_reply("好。"),
        ]
    )
    settings = BeatSettings(provider=_provider(fake_server), builder=_builder, tools=ToolRegistry([LOOKUP]))
    events, recorded = _run(settings, USER)
    assert any(e.type == "warning" for e in events)
    assert recorded[1]["content"] == LORE["听雨轩"] and not recorded[1]["is_error"]
    assert recorded[3]["is_error"] and "Re-issue the tool call" in recorded[3]["content"]


def test_invalid_arguments_get_the_validation_message(fake_server: FakeOpenAIServer) -> None:
    fake_server.script([_call_reply(("c1", "lore_lookup", ['{"name": "听雨轩"}'])), text_reply("好。")])
    settings = BeatSettings(provider=_provider(fake_server), builder=_builder, tools=ToolRegistry([LOOKUP]))
    _, recorded = _run(settings, USER)
    assert recorded[1]["content"].startswith('Validation failed for tool "lore_lookup":')
    assert "'title' is a required property" in recorded[1]["content"]


def test_cancel_mid_stream_keeps_the_partial_reply(fake_server: FakeOpenAIServer) -> None:
    from peargarden.testing.fake_openai import Pause

    fake_server.script(
        [sse(chunk(content="青梧抬眼，"), Pause(0.3), chunk(content="没说话。"), chunk(finish_reason="stop"))]
    )
    cancel = threading.Event()
    settings = BeatSettings(provider=_provider(fake_server), builder=_builder, cancel=cancel)
    settings.record = lambda message: recorded.append(message) or "e1"  # type: ignore[func-returns-value]
    recorded: list[dict[str, Any]] = []
    events = []
    for event in run_beat(USER, settings):
        events.append(event)
        if event.type == "text_delta":
            cancel.set()
    assert events[-1].to_json()["stop_reason"] == "aborted"
    assert recorded[0]["content"] == "青梧抬眼，" and recorded[0]["stop_reason"] == "aborted"


def test_rate_limit_is_retried_then_the_beat_goes_on(fake_server: FakeOpenAIServer) -> None:
    fake_server.script([status(429, headers={"Retry-After": "0"}), text_reply("来了。")])
    events, recorded = _run(BeatSettings(provider=_provider(fake_server), builder=_builder), USER)
    assert events[-1].to_json()["stop_reason"] == "stop"
    assert recorded[0]["content"] == "来了。" and len(fake_server.chat_requests) == 2


def test_disconnect_mid_reply_keeps_the_partial_text_and_ends_with_an_error(fake_server: FakeOpenAIServer) -> None:
    from peargarden.testing.fake_openai import Disconnect

    fake_server.script([sse(chunk(role="assistant", content=""), chunk(content="青梧推开窗，"), Disconnect())])
    events, recorded = _run(BeatSettings(provider=_provider(fake_server), builder=_builder), USER)
    assert [e.type for e in events][-2:] == ["error", "done"]
    assert recorded[0]["content"] == "青梧推开窗，" and recorded[0]["stop_reason"] == "error"


def test_a_server_that_never_answers_times_out(fake_server: FakeOpenAIServer) -> None:
    from peargarden.providers.openai_compat import RetryPolicy

    fake_server.script([sse(chunk(content="迟"), delay=4.0), sse(chunk(content="迟"), delay=4.0)])
    provider = OpenAICompatProvider(
        fake_server.base_url, "fake-model", "k", timeout=1.0, retry=RetryPolicy(attempts=2), sleep=lambda _s: None
    )
    events, recorded = _run(BeatSettings(provider=provider, builder=_builder), USER)
    assert [e.type for e in events] == ["error", "done"] and recorded == []
    fake_server.requests.clear()
