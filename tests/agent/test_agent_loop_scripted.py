"""Loop behaviour that needs no HTTP: approvals, tools that end the beat, the round limit."""

from __future__ import annotations

from typing import Any

import pytest

from peargarden.agent.approvals import SESSION_GRANT_TYPE, ApprovalAnswer, ApprovalRequest
from peargarden.agent.events import ChoiceEvent
from peargarden.agent.loop import BeatInput, BeatSettings, run_beat
from peargarden.agent.tools import FunctionTool, ToolContext, ToolRegistry, ToolResult
from peargarden.providers.base import ChatRequest, TextDelta, TextRetract, ToolCall
from peargarden.providers.scripted import ScriptedProvider, ScriptedTurn, text_turn, tool_turn
from peargarden.sessions.context import ContextMessage

RAN: list[str] = []


def _bash(args: dict[str, Any], ctx: ToolContext) -> str:
    RAN.append(args["command"])
    return "青梧.png"


BASH = FunctionTool(
    "bash",
    "运行命令",
    {"type": "object", "properties": {"command": {"type": "string"}}},
    _bash,
    access="exec",
)
ASK = FunctionTool(
    "ask",
    "把选择交给用户",
    {"type": "object", "properties": {"options": {"type": "array", "items": {"type": "string"}}}},
    lambda args, ctx: ToolResult("已把选项交给用户", details={"options": args["options"]}, ends_beat=True),
)
HISTORY = [ContextMessage("user", "看看卡片目录里有什么。")]


def _builder(inp: BeatInput) -> ChatRequest:
    return ChatRequest(messages=[m.to_openai() for m in inp.history], tools=inp.tools)


def _settings(
    provider: ScriptedProvider, **kw: Any
) -> tuple[BeatSettings, list[dict[str, Any]], ToolContext]:
    recorded: list[dict[str, Any]] = []
    customs: list[dict[str, Any]] = []
    ctx = ToolContext(
        custom_entries=customs,
        append_custom=lambda kind, data: customs.append({"customType": kind, "data": data}),
    )

    def record(message: dict[str, Any]) -> str:
        recorded.append(message)
        return f"e{len(recorded)}"

    settings = BeatSettings(
        provider=provider, builder=_builder, tools=ToolRegistry([BASH, ASK]), record=record, context=ctx, **kw
    )
    return settings, recorded, ctx


def _bash_call(call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, "bash", '{"command": "ls"}')


@pytest.mark.parametrize(
    ("answer", "ran", "granted"),
    [
        (ApprovalAnswer("once"), True, False),
        (ApprovalAnswer("session"), True, True),
        (ApprovalAnswer("deny", "别动我的文件"), False, False),
    ],
)
def test_approval_answers(answer: ApprovalAnswer, ran: bool, granted: bool) -> None:
    RAN.clear()
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request)
        return answer

    provider = ScriptedProvider().add(tool_turn(_bash_call()), text_turn("好了。"))
    settings, recorded, ctx = _settings(provider, approver=approver)
    events = list(run_beat(HISTORY, settings))
    assert "approval_needed" in [e.type for e in events]
    assert asked[0].tool_name == "bash" and asked[0].args == {"command": "ls"}
    assert (RAN == ["ls"]) is ran
    assert bool(ctx.customs(SESSION_GRANT_TYPE)) is granted
    if answer.choice == "deny":
        assert recorded[1]["is_error"] and "别动我的文件" in recorded[1]["content"]


def test_session_grant_is_not_asked_again() -> None:
    provider = ScriptedProvider().add(
        tool_turn(_bash_call("c1")), tool_turn(_bash_call("c2")), text_turn("好。")
    )
    answers = iter([ApprovalAnswer("session")])
    settings, _, _ = _settings(provider, approver=lambda _r: next(answers))
    events = list(run_beat(HISTORY, settings))
    assert [e.type for e in events].count("approval_needed") == 1


def test_no_answer_stops_the_beat_and_no_approver_denies() -> None:
    provider = ScriptedProvider().add(tool_turn(_bash_call()))
    settings, recorded, _ = _settings(provider, approver=lambda _r: None)
    events = list(run_beat(HISTORY, settings))
    assert events[-1].to_json()["stop_reason"] == "aborted"
    assert recorded[-1]["role"] == "tool" and recorded[-1]["is_error"]

    provider = ScriptedProvider().add(tool_turn(_bash_call()), text_turn("那算了。"))
    settings, recorded, _ = _settings(provider)
    events = list(run_beat(HISTORY, settings))
    assert events[-1].to_json()["stop_reason"] == "stop"
    assert "没有人可以询问" in recorded[1]["content"]


def test_ask_tool_ends_the_beat_without_another_model_call() -> None:
    provider = ScriptedProvider().add(tool_turn(ToolCall("c1", "ask", '{"options": ["留下", "离开"]}')))
    settings, recorded, _ = _settings(provider)
    events = list(run_beat(HISTORY, settings))
    assert events[-1].to_json()["stop_reason"] == "ended_by_tool"
    assert len(provider.requests) == 1
    assert recorded[-1]["details"] == {"options": ["留下", "离开"]}


def test_round_limit_and_length_stop() -> None:
    provider = ScriptedProvider().add(*[tool_turn(ToolCall(f"c{i}", "nope", "{}")) for i in range(3)])
    settings, _, _ = _settings(provider, max_rounds=3)
    events = list(run_beat(HISTORY, settings))
    assert events[-1].to_json() | {"usage": {}} == {
        "type": "done",
        "stop_reason": "max_rounds",
        "rounds": 3,
        "entry_id": "e6",
        "usage": {},
    }

    from peargarden.providers.scripted import ScriptedTurn

    provider = ScriptedProvider().add(
        ScriptedTurn(tool_calls=[_bash_call()], stop_reason="length"), text_turn("重来。")
    )
    settings, recorded, _ = _settings(provider)
    list(run_beat(HISTORY, settings))
    assert "output token limit" in recorded[1]["content"]


def test_continue_prefix_and_builder_warnings_once() -> None:
    from peargarden.agent.loop import BuiltRequest

    def builder(inp: BeatInput) -> BuiltRequest:
        return BuiltRequest(_builder(inp), warnings=["SYSTEM.md 缺失，使用内置版本"])

    provider = ScriptedProvider().add(tool_turn(ToolCall("c1", "ask", '{"options": []}')))
    settings, _, _ = _settings(provider)
    settings.builder = builder
    events = list(run_beat(HISTORY, settings))
    assert [e.type for e in events].count("warning") == 1

    provider = ScriptedProvider().add(text_turn("接着说完。"))
    settings, recorded, _ = _settings(provider, continue_prefix="青梧放下茶盏，", kind="continue")
    list(run_beat(HISTORY, settings))
    assert recorded[0]["content"] == "青梧放下茶盏，接着说完。"


def test_a_broken_builder_ends_the_beat_with_an_error_event() -> None:
    def builder(inp: BeatInput) -> ChatRequest:
        raise KeyError("system")

    settings, recorded, _ = _settings(ScriptedProvider())
    settings.builder = builder
    events = list(run_beat(HISTORY, settings))
    assert [e.type for e in events] == ["error", "done"]
    assert "KeyError" in events[0].to_json()["message"] and recorded == []


def test_thinking_level_and_model_reach_the_request() -> None:
    provider = ScriptedProvider().add(text_turn("好。"))
    settings, _, _ = _settings(provider, thinking="high", model="deepseek-chat")
    list(run_beat(HISTORY, settings))
    assert provider.requests[0].thinking == "high" and provider.requests[0].model == "deepseek-chat"


def test_text_a_provider_takes_back_leaves_the_stream_and_the_recorded_reply() -> None:
    """A small model's guard took back a sentence it had let through (issue 49): the front gets a
    ``text_retract`` with that text, and the reply kept is what is left."""
    turn = ScriptedTurn(
        events=[
            TextDelta("有的，楼上还空着一间。"),
            TextDelta("我是这里的掌柜，"),
            TextRetract("我是这里的掌柜，", "claim"),
            TextDelta("热水在灶上。"),
        ]
    )
    settings, recorded, _ = _settings(ScriptedProvider([turn]))
    events = list(run_beat(list(HISTORY), settings))
    kinds = [event.type for event in events]
    assert kinds == ["text_delta", "text_delta", "text_retract", "text_delta", "done"]
    assert events[2].to_json() == {"type": "text_retract", "text": "我是这里的掌柜，", "reason": "claim"}
    assert recorded[0]["content"] == "有的，楼上还空着一间。热水在灶上。"


def test_a_tools_reader_event_follows_its_tool_end() -> None:
    """A tool's result may carry an event for the reader (issue 43): the loop emits it right after
    that tool's ``tool_end``; the model and the recorded message never see it."""
    choice = ChoiceEvent(question="今晚住哪？", options=("听雨轩", "渡口客栈"), free_text=False)
    pick = FunctionTool(
        "pick",
        "把岔口交给用户",
        {"type": "object", "properties": {}},
        lambda args, ctx: ToolResult("已交给用户", ends_beat=True, reader=choice),
    )
    provider = ScriptedProvider().add(tool_turn(_bash_call("c1"), ToolCall("c2", "pick", "{}")))
    settings, recorded, _ = _settings(provider, approver=lambda _r: ApprovalAnswer("once"))
    settings.tools = ToolRegistry([BASH, pick])
    events = list(run_beat(HISTORY, settings))
    assert [(e.type, getattr(e, "name", None)) for e in events] == [
        ("tool_start", "bash"),
        ("approval_needed", "bash"),
        ("tool_end", "bash"),
        ("tool_start", "pick"),
        ("tool_end", "pick"),
        ("choice", None),
        ("done", None),
    ]
    assert events[-2] is choice and events[-1].to_json()["stop_reason"] == "ended_by_tool"
    assert choice.to_json() == {
        "type": "choice",
        "question": "今晚住哪？",
        "options": ["听雨轩", "渡口客栈"],
        "free_text": False,
    }
    assert recorded[-1]["content"] == "已交给用户" and "听雨轩" not in str(recorded)
