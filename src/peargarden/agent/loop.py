"""One beat: build the request, stream the model, run its tool calls, repeat until it stops.

A beat ends when the model answers without tool calls, a tool ends the beat (``ask``), the round limit
(20) is reached, the cancel event is set, or the provider fails.  :func:`run_beat` is a generator of
:mod:`.events`; ``done`` is always the last event.  The caller has already written the user's message to
the session (so a failure never loses it); the loop records each assistant message and tool result
through ``record`` as soon as it is complete.

The request comes from an injected :data:`RequestBuilder` (tavern or stage mode): it receives a
:class:`BeatInput` — the history including this beat's earlier rounds — and returns a ``ChatRequest``
(or a :class:`BuiltRequest` with warnings for the user).

A tool may switch the chat's mode mid-beat (work mode's switch tool): it sets
``ctx.beat_state["switch_mode"]``; after the tool batch the loop asks ``settings.switch_mode`` for the
new mode's builder, tools and tags and goes on with them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import msgspec

from peargarden.errors import PearError
from peargarden.providers.base import (
    ChatRequest,
    Done,
    Provider,
    TextDelta,
    TextRetract,
    ThinkingDelta,
    ThinkingLevel,
    ToolCall,
    ToolSpec,
    Usage,
    take_back,
)
from peargarden.sessions.context import ContextMessage

from .approvals import Approver, CardGrantRecorder, Judge, default_judge
from .events import (
    AgentEvent,
    DoneEvent,
    ErrorEvent,
    TextDeltaEvent,
    TextRetractEvent,
    ThinkingDeltaEvent,
    WarningEvent,
    error_event,
)
from .execute import LENGTH_MESSAGE, SKIPPED_MESSAGE, Approvals, execute_call, skipped
from .record import Recorder, UsageTotal, assistant_message, context_message, no_record, tool_message
from .tools import Mode, ToolContext, ToolRegistry, ToolResult

MAX_ROUNDS = 20

BeatKind = Literal["send", "regenerate", "continue", "impersonate"]


class BeatInput(msgspec.Struct):
    """What a request builder gets for one model call."""

    history: list[ContextMessage]
    user_text: str
    thinking: ThinkingLevel
    tools: list[ToolSpec]
    round: int
    mode: Mode
    kind: BeatKind
    # Custom entries on the active branch (``{"customType", "data"}``), oldest first: state a builder
    # keeps with the chat, e.g. SillyTavern's chat metadata in tavern mode.
    custom_entries: Sequence[Mapping[str, Any]] = ()


class BuiltRequest(msgspec.Struct):
    request: ChatRequest
    warnings: list[str] = msgspec.field(default_factory=list)
    # Custom entries to record on the branch once this request's round is over, after its reply, in
    # a recorded beat (a dry run that calls the builder directly records nothing).
    customs: list[tuple[str, Any]] = msgspec.field(default_factory=list)
    # What a preview may show besides the request (e.g. tavern mode's SillyTavern body and ledger);
    # never sent, never recorded.
    inspect: dict[str, Any] = msgspec.field(default_factory=dict)
    # Fields the mode keeps on this round's reply, given the request as sent (tavern mode: the
    # ``extra`` SillyTavern stores with a reply, naming the model asked).
    reply: Callable[[ChatRequest], dict[str, Any]] | None = None


RequestBuilder = Callable[[BeatInput], "ChatRequest | BuiltRequest"]

# A tool asks for a mode switch by setting ctx.beat_state[MODE_SWITCH_KEY] = "<mode>".
MODE_SWITCH_KEY = "switch_mode"


class ModeSwitch(msgspec.Struct):
    """What a beat continues with after a tool switched the mode."""

    mode: Mode
    builder: RequestBuilder
    tools: ToolRegistry
    tags: list[str] = msgspec.field(default_factory=list)


class BeatSettings(msgspec.Struct):
    provider: Provider
    builder: RequestBuilder
    tools: ToolRegistry = msgspec.field(default_factory=ToolRegistry)
    thinking: ThinkingLevel = "off"
    mode: Mode = ""
    kind: BeatKind = "send"
    model: str = ""
    max_rounds: int = MAX_ROUNDS
    judge: Judge = default_judge
    approver: Approver | None = None
    record_card_grant: CardGrantRecorder | None = None
    record: Recorder = no_record
    cancel: threading.Event = msgspec.field(default_factory=threading.Event)
    context: ToolContext = msgspec.field(default_factory=ToolContext)
    # /continue: the reply being continued; the recorded message is prefix + new text.
    continue_prefix: str = ""
    # Tags on every message this beat records (e.g. ["work"] in work mode).
    tags: list[str] = msgspec.field(default_factory=list)
    # Called when a tool set ctx.beat_state["switch_mode"]; None = mode switches are ignored.
    switch_mode: Callable[[str], ModeSwitch] | None = None


class _Round(msgspec.Struct):
    text: list[str] = msgspec.field(default_factory=list)
    reasoning: list[str] = msgspec.field(default_factory=list)
    calls: list[ToolCall] = msgspec.field(default_factory=list)
    usage: Usage | None = None
    stop_reason: str = "stop"
    model: str = ""
    failure: PearError | None = None


def _stream(settings: BeatSettings, request: ChatRequest, state: _Round) -> Iterator[AgentEvent]:
    """Stream one model call into *state*, yielding deltas.  Never raises for provider failures."""
    try:
        for event in settings.provider.stream(request, settings.cancel):
            if settings.cancel.is_set() and not isinstance(event, Done):
                # A provider that ignores cancel: stop reading ourselves.
                state.stop_reason = "aborted"
                return
            if isinstance(event, TextDelta):
                if event.text:
                    state.text.append(event.text)
                    yield TextDeltaEvent(text=event.text)
            elif isinstance(event, TextRetract):
                if event.text:
                    state.text[:] = [take_back("".join(state.text), event.text)]
                    yield TextRetractEvent(text=event.text, reason=event.reason)
            elif isinstance(event, ThinkingDelta):
                if event.text:
                    state.reasoning.append(event.text)
                    yield ThinkingDeltaEvent(text=event.text)
            elif isinstance(event, ToolCall):
                state.calls.append(event)
            elif isinstance(event, Usage):
                state.usage = event
            elif isinstance(event, Done):
                state.stop_reason = event.stop_reason
                state.model = event.model
                return
    except PearError as error:
        state.failure = error
    except Exception as error:  # an unexpected provider bug still ends the beat cleanly
        state.failure = PearError(f"模型调用失败：{type(error).__name__}: {error}")
    if settings.cancel.is_set():
        state.stop_reason = "aborted"


def no_reply_error(stop_reason: str, reasoning: str) -> PearError:
    """The error of a round that ended without words or tool calls: only reasoning, or nothing."""
    if reasoning.strip():
        said = f"模型只给了思考，没有正文（reasoning only, stop_reason={stop_reason}）"
        if stop_reason != "length":
            return PearError(said)
        # The thinking level is a setting (the page's 思考档位) and a flag (the CLI's --thinking).
        return PearError(f"{said}：思考用完了输出长度，可降低思考强度或调高输出上限", hint="--thinking", fix="model")
    return PearError(f"模型的回复是空的（empty reply, stop_reason={stop_reason}）")


def run_beat(history: list[ContextMessage], settings: BeatSettings) -> Iterator[AgentEvent]:
    """Run one beat over *history* (which already ends with the user's message, if any)."""
    working = list(history)
    tools = settings.tools
    specs = tools.specs()
    approvals = Approvals(settings.judge, settings.approver, settings.record_card_grant)
    ctx = settings.context
    ctx.cancel = settings.cancel
    usage = UsageTotal()
    seen_warnings: set[str] = set()
    last_entry: str | None = None
    rounds = 0

    def done(reason: str) -> DoneEvent:
        return DoneEvent(stop_reason=reason, rounds=rounds, entry_id=last_entry, usage=dict(usage.counts))

    while True:
        if settings.cancel.is_set():
            yield done("aborted")
            return
        if rounds >= settings.max_rounds:
            yield WarningEvent(message=f"工具调用已达 {settings.max_rounds} 轮上限，本轮结束")
            yield done("max_rounds")
            return
        beat_input = BeatInput(
            history=working,
            user_text=ctx.user_text,
            thinking=settings.thinking,
            tools=specs,
            round=rounds,
            mode=settings.mode,
            kind=settings.kind,
            custom_entries=list(ctx.custom_entries),
        )
        try:
            built = settings.builder(beat_input)
        except PearError as error:
            yield error_event(error)
            yield done("error")
            return
        except Exception as error:  # a builder bug ends the beat with a readable line, not a traceback
            yield ErrorEvent(message=f"请求组装失败：{type(error).__name__}: {error}")
            yield done("error")
            return
        if isinstance(built, ChatRequest):
            built = BuiltRequest(built)
        for warning in built.warnings:
            if warning not in seen_warnings:
                seen_warnings.add(warning)
                yield WarningEvent(message=warning)
        request = built.request
        request.thinking = settings.thinking
        if not request.model:
            request.model = settings.model

        state = _Round()
        yield from _stream(settings, request, state)
        rounds += 1
        usage.add(state.usage)
        said = "".join(state.text)
        text = settings.continue_prefix + said if rounds == 1 and settings.continue_prefix else said
        stopped = settings.cancel.is_set() or state.stop_reason == "aborted"
        failed = state.failure is not None or state.stop_reason == "error"
        # Keep whatever arrived; tool calls of an interrupted or failed round are not run (nor kept).
        calls = [] if stopped or failed else state.calls
        replied = bool(said.strip()) or bool(calls)
        if not (stopped or failed or replied):
            # Nothing but reasoning, or nothing at all: not a reply, whichever the provider.
            state.failure, failed = no_reply_error(state.stop_reason, "".join(state.reasoning)), True
        # A round without words or tool calls is not recorded: no empty assistant message in the chat.
        if replied:
            reason = "aborted" if stopped else ("error" if failed else state.stop_reason)
            message = assistant_message(
                text, "".join(state.reasoning), calls, state.usage, state.model, reason, settings.tags
            )
            if built.reply is not None:
                message.update(built.reply(request))
            last_entry = settings.record(message) or last_entry
            working.append(context_message(message, last_entry))
        # Recorded after the round's message, never between the user's message and the reply: a
        # regenerate forks where the reply did, so the new reply stays a sibling (a swipe).
        for custom_type, data in built.customs:
            ctx.append_custom(custom_type, data)
        if failed:
            yield error_event(state.failure or PearError("模型返回了错误"))
            yield done("error")
            return
        if stopped:
            yield done("aborted")
            return
        if not calls:
            yield done("length" if state.stop_reason == "length" else "stop")
            return

        ends_beat = False
        stop_now = False
        for call in calls:
            if state.stop_reason == "length":
                outcome = yield from skipped(call, LENGTH_MESSAGE.format(name=call.name))
            elif settings.cancel.is_set() or stop_now:
                outcome = yield from skipped(call, SKIPPED_MESSAGE)
            else:
                outcome = yield from execute_call(call, tools, ctx, approvals)
            result: ToolResult = outcome.result
            stop_now = stop_now or outcome.stop
            ends_beat = ends_beat or result.ends_beat
            message = tool_message(call, result.text, result.is_error, result.details, settings.tags)
            last_entry = settings.record(message) or last_entry
            working.append(context_message(message, last_entry))
        if settings.cancel.is_set() or stop_now:
            yield done("aborted")
            return
        switch = ctx.beat_state.pop(MODE_SWITCH_KEY, None)
        if ends_beat:
            if isinstance(switch, str) and settings.switch_mode is not None and switch != settings.mode:
                # A switch that also ends the beat (back to role play): the chat still changes mode.
                try:
                    settings.switch_mode(switch)
                except PearError as error:
                    yield WarningEvent(message=f"无法切换到 {switch}：{error}")
            yield done("ended_by_tool")
            return
        if isinstance(switch, str) and settings.switch_mode is not None and switch != settings.mode:
            # A tool moved the chat into another mode (e.g. work mode): the next round is built and
            # offered tools by that mode, and what it records carries that mode's tags.
            try:
                new = settings.switch_mode(switch)
            except PearError as error:
                yield WarningEvent(message=f"无法切换到 {switch}：{error}")
                continue
            settings.builder, tools, settings.tags = new.builder, new.tools, list(new.tags)
            settings.mode = new.mode
            ctx.mode = new.mode
            specs = tools.specs()
