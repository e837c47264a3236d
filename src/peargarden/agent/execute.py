"""One tool call, start to finish: find the tool, parse and validate its arguments, ask the judge
(and the user when the judge says "ask"), run it, turn any failure into an error result.

:func:`execute_call` is a generator: it yields the events of the call (``tool_start``,
``approval_needed``, ``tool_end``, then the result's reader event if it has one) and returns a :class:`CallOutcome`.
"""

from __future__ import annotations

from collections.abc import Generator

import msgspec

from peargarden.errors import PearError
from peargarden.providers.base import ToolCall

from .approvals import (
    SESSION_GRANT_TYPE,
    ApprovalRequest,
    Approver,
    CardGrantRecorder,
    Judge,
    session_grant_data,
)
from .arguments import coerce, parse_arguments, unparsable_message, validation_errors, validation_message
from .events import AgentEvent, ApprovalNeededEvent, ToolEndEvent, ToolStartEvent, WarningEvent
from .tools import ToolContext, ToolRegistry, ToolResult

LENGTH_MESSAGE = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments may '
    "be truncated. Re-issue the tool call with complete arguments."
)
SKIPPED_MESSAGE = "Tool call was not executed: the user stopped the beat."
NO_APPROVER_MESSAGE = "工具调用需要用户同意，但当前没有人可以询问，已拒绝。"
DENIED_MESSAGE = "用户拒绝了这次工具调用。"
NO_ANSWER_MESSAGE = "用户没有回答是否允许这次工具调用，本轮已停止。"


class CallOutcome(msgspec.Struct, frozen=True):
    result: ToolResult
    # The beat must stop after this call (no answer to an approval).
    stop: bool = False


class Approvals(msgspec.Struct):
    judge: Judge
    approver: Approver | None = None
    record_card_grant: CardGrantRecorder | None = None


def skipped(call: ToolCall, message: str) -> Generator[AgentEvent, None, CallOutcome]:
    yield ToolStartEvent(call_id=call.id, name=call.name, args=None)
    result = ToolResult(message, is_error=True)
    yield ToolEndEvent(call_id=call.id, name=call.name, text=result.text, is_error=True)
    return CallOutcome(result)


def execute_call(
    call: ToolCall, tools: ToolRegistry, ctx: ToolContext, approvals: Approvals
) -> Generator[AgentEvent, None, CallOutcome]:
    parsed = parse_arguments(call.arguments)
    yield ToolStartEvent(call_id=call.id, name=call.name, args=parsed.args)
    outcome = yield from _decide_and_run(call, parsed.args, parsed.repaired, tools, ctx, approvals)
    result = outcome.result
    yield ToolEndEvent(
        call_id=call.id, name=call.name, text=result.text, is_error=result.is_error, details=result.details
    )
    if result.reader is not None:
        yield result.reader
    return outcome


def _decide_and_run(
    call: ToolCall,
    args: dict[str, object] | None,
    repaired: bool,
    tools: ToolRegistry,
    ctx: ToolContext,
    approvals: Approvals,
) -> Generator[AgentEvent, None, CallOutcome]:
    tool = tools.get(call.name)
    if tool is None:
        return CallOutcome(ToolResult(f"Tool {call.name} not found", is_error=True))
    if args is None:
        return CallOutcome(ToolResult(unparsable_message(call.name, call.arguments), is_error=True))
    args = coerce(dict(args), tool.parameters)
    errors = validation_errors(args, tool.parameters)
    if errors:
        if repaired:
            return CallOutcome(ToolResult(unparsable_message(call.name, call.arguments), is_error=True))
        return CallOutcome(ToolResult(validation_message(call.name, errors, args), is_error=True))
    if repaired:
        yield WarningEvent(message=f"工具 {call.name} 的参数 JSON 不完整，已自动修复")

    try:
        judgement = approvals.judge(tool, args, ctx)
    except Exception as error:  # a judge that fails must fail closed
        return CallOutcome(ToolResult(f"Tool execution was blocked: {error}", is_error=True))
    if judgement.verdict == "deny":
        reason = judgement.reason or "Tool execution was blocked"
        return CallOutcome(ToolResult(reason, is_error=True))
    if judgement.verdict == "ask":
        request = ApprovalRequest(call.id, call.name, args, tool.access, judgement.unit, judgement.reason)
        yield ApprovalNeededEvent(
            call_id=call.id,
            name=call.name,
            args=args,
            access=tool.access,
            unit=judgement.unit,
            reason=judgement.reason,
        )
        if approvals.approver is None:
            return CallOutcome(ToolResult(NO_APPROVER_MESSAGE, is_error=True))
        answer = approvals.approver(request)
        if answer is None:
            return CallOutcome(ToolResult(NO_ANSWER_MESSAGE, is_error=True), stop=True)
        if answer.choice == "deny":
            text = DENIED_MESSAGE + (f"用户说：{answer.text}" if answer.text else "")
            return CallOutcome(ToolResult(text, is_error=True))
        if answer.choice == "session":
            ctx.append_custom(SESSION_GRANT_TYPE, session_grant_data(request))
        elif answer.choice == "card" and approvals.record_card_grant is not None:
            approvals.record_card_grant(request)

    try:
        return CallOutcome(tool.run(args, ctx))
    except PearError as error:
        return CallOutcome(ToolResult(str(error), is_error=True))
    except Exception as error:  # a tool bug must not end the beat; the model sees what went wrong
        return CallOutcome(ToolResult(f"{type(error).__name__}: {error}", is_error=True))
