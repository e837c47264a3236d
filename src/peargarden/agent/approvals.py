"""The approvals flow: a judge decides, a front answers when the judge says "ask".

Before every tool call the loop asks a :data:`Judge` (the sandbox plugs its pure verdict in here):
``judge(tool, args, ctx) -> Judgement`` with ``verdict`` ``"allow"`` / ``"ask"`` / ``"deny"``, the grant
``unit`` (what an approval would cover, e.g. a folder or a command prefix) and a ``reason``.

- ``allow``: the tool runs.
- ``deny``: the tool does not run; the model gets an error result with the reason.
- ``ask``: the loop emits ``approval_needed`` and calls the front's :data:`Approver` with an
  :class:`ApprovalRequest`.  The answer is one of ``"once"`` (run this call), ``"session"`` (run it and
  record a ``sandbox_grant`` custom entry on the session branch — rewinding before it removes it),
  ``"card"`` (run it and hand the grant to ``record_card_grant``, which writes ``卡.json``), ``"deny"``
  (a free-text answer counts as deny; its text is passed to the model).  ``None`` (no answer) stops
  the beat.

Without an approver every "ask" is a deny ("no one to ask").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec

from .tools import Tool, ToolContext

Verdict = Literal["allow", "ask", "deny"]
Answer = Literal["once", "session", "card", "deny"]

SESSION_GRANT_TYPE = "sandbox_grant"


class Judgement(msgspec.Struct, frozen=True):
    verdict: Verdict
    unit: str | None = None
    reason: str = ""


class ApprovalRequest(msgspec.Struct, frozen=True):
    call_id: str
    tool_name: str
    args: dict[str, Any]
    access: str
    unit: str | None
    reason: str


class ApprovalAnswer(msgspec.Struct, frozen=True):
    choice: Answer
    # Free text the user typed instead of choosing: treated as deny and passed to the model.
    text: str = ""


Judge = Callable[[Tool, dict[str, Any], ToolContext], Judgement]
Approver = Callable[[ApprovalRequest], "ApprovalAnswer | None"]
CardGrantRecorder = Callable[[ApprovalRequest], None]


def default_judge(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Judgement:
    """Until the sandbox is plugged in: running programs asks, everything else is allowed.

    Session grants recorded on the branch for the same tool and unit allow without asking.
    """
    if tool.access != "exec":
        return Judgement("allow")
    unit = f"{tool.name}"
    if has_session_grant(ctx, tool.name, unit):
        return Judgement("allow", unit, "本会话已授权")
    return Judgement("ask", unit, "运行程序需要你的同意")


def has_session_grant(ctx: ToolContext, tool_name: str, unit: str | None) -> bool:
    for data in ctx.customs(SESSION_GRANT_TYPE):
        if isinstance(data, dict) and data.get("tool") == tool_name and data.get("unit") == unit:
            return True
    return False


def session_grant_data(request: ApprovalRequest) -> dict[str, Any]:
    """The ``data`` of the ``sandbox_grant`` custom entry an "allow for this session" answer records."""
    return {"tool": request.tool_name, "unit": request.unit, "access": request.access}
