"""Events the agent loop emits while a beat runs.  Names are stable: fronts and ``--json`` rely on them.

Every event is a frozen dataclass with a ``type`` string and ``to_json()`` (a plain dict, the line
``pear chat --once --json`` prints):

``text_delta``      ``text``: a piece of the reply as it streams.
``text_retract``    ``text``, ``reason``: the end of the reply shown so far is taken back — *text* is
                    that end, exactly as streamed; a front removes it (visibly, as a swipe would).  A
                    small model's guards send it when they reject a sentence they had let through
                    clause by clause (``reason``: ``echo``, ``claim``, ``repeat``, ``user``,
                    ``name``).
``thinking_delta``  ``text``: a piece of the model's reasoning.
``tool_start``      ``call_id``, ``name``, ``args`` (the validated/repaired arguments, or ``None`` when
                    they could not be parsed).
``tool_end``        ``call_id``, ``name``, ``text`` (what the model sees), ``is_error``, ``details``.
``approval_needed`` ``call_id``, ``name``, ``args``, ``access``, ``unit``, ``reason``: the loop waits for
                    the front's answer (see :mod:`peargarden.agent.approvals`).
``warning``         ``message``: something the user should know; the beat goes on.
``error``           ``message``: the beat failed; it ends with ``done`` (stop reason ``error``).  With
                    ``hint`` (a command that fixes it: a terminal shows it after the message) and
                    ``fix`` (the setting that fixes it, one of ``peargarden.errors.FIXES``: a page
                    links to it) when the error has them.
``speaker``         ``name``, ``card``: the next reply is this member's (a group chat: one beat, several
                    speakers; ``card`` is the member's card folder).  Sent by the service before each
                    speaker's events; a single-card chat sends none.
``reply_end``       ``stop_reason``, ``entry_id``: the reply is complete and the chat's after-beat work
                    (scene notes, compaction, variable updates) runs now; ``done`` follows when it
                    is over.  Sent by the service (not the loop) and only when such work runs: a
                    front may unlock its composer here.
``prose``           ``text``, ``version``: the reply the user reads, handed over whole by a tool (the
                    stage's sealed draft); right after that tool's ``tool_end``.
``choice``          ``question``, ``options``, ``free_text``: a fork handed to the user (the stage's
                    ``ask``), right after its ``tool_end``; the beat ends, and the answer (an
                    option's text, or the user's own words when ``free_text``) is the next message.
``done``            ``stop_reason`` (``stop``, ``length``, ``aborted``, ``error``, ``ended_by_tool``,
                    ``max_rounds``), ``rounds`` (model calls made), ``entry_id`` (the last entry written
                    for this beat, or ``None``), ``usage`` (summed token counts).

``done`` is always the last event of a beat, exactly once.  ``prose`` and ``choice`` are *reader
events*: a tool's :class:`~peargarden.agent.tools.ToolResult` carries one (``reader``) and the loop
emits it after the tool's ``tool_end``, so a front shows what the user reads without knowing the
tool's name or its ``details``.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from peargarden.errors import PearError

StopReason = Literal["stop", "length", "aborted", "error", "ended_by_tool", "max_rounds"]


class _Event(msgspec.Struct, frozen=True):
    type: str = ""

    def to_json(self) -> dict[str, Any]:
        # fresh containers all the way down (args, details), as dataclasses.asdict gave
        return dict(msgspec.to_builtins(self))


class TextDeltaEvent(_Event, frozen=True):
    text: str = ""
    type: str = "text_delta"

    def to_json(self) -> dict[str, Any]:
        # What asdict gives, without its deep copy: a long reply streams tens of thousands of these.
        return {"type": self.type, "text": self.text}


class TextRetractEvent(_Event, frozen=True):
    text: str = ""
    reason: str = ""
    type: str = "text_retract"


class ThinkingDeltaEvent(_Event, frozen=True):
    text: str = ""
    type: str = "thinking_delta"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


class ToolStartEvent(_Event, frozen=True):
    call_id: str = ""
    name: str = ""
    args: dict[str, Any] | None = None
    type: str = "tool_start"


class ToolEndEvent(_Event, frozen=True):
    call_id: str = ""
    name: str = ""
    text: str = ""
    is_error: bool = False
    details: dict[str, Any] | None = None
    type: str = "tool_end"


class ApprovalNeededEvent(_Event, frozen=True):
    call_id: str = ""
    name: str = ""
    args: dict[str, Any] = msgspec.field(default_factory=dict)
    access: str = ""
    unit: str | None = None
    reason: str = ""
    type: str = "approval_needed"


class WarningEvent(_Event, frozen=True):
    message: str = ""
    type: str = "warning"


class ErrorEvent(_Event, frozen=True):
    message: str = ""
    type: str = "error"
    hint: str = ""
    fix: str = ""


def error_event(error: PearError) -> ErrorEvent:
    """The ``error`` event of *error*: its line for a page, with the shell's hint and the setting apart."""
    return ErrorEvent(message=error.without_hint(), hint=error.hint, fix=error.fix)


class SpeakerEvent(_Event, frozen=True):
    name: str = ""
    card: str = ""
    type: str = "speaker"


class ReplyEndEvent(_Event, frozen=True):
    stop_reason: str = "stop"
    entry_id: str | None = None
    type: str = "reply_end"


class ProseEvent(_Event, frozen=True):
    text: str = ""
    version: int = 0
    type: str = "prose"


class ChoiceEvent(_Event, frozen=True):
    question: str = ""
    options: tuple[str, ...] = ()
    free_text: bool = True
    type: str = "choice"

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "options": list(self.options)}  # a JSON array, as on the wire


# What a tool may hand to the reader (``ToolResult.reader``).
ReaderEvent = ProseEvent | ChoiceEvent


class DoneEvent(_Event, frozen=True):
    stop_reason: str = "stop"
    rounds: int = 0
    entry_id: str | None = None
    usage: dict[str, int] = msgspec.field(default_factory=dict)
    type: str = "done"


AgentEvent = (
    TextDeltaEvent
    | TextRetractEvent
    | ThinkingDeltaEvent
    | ToolStartEvent
    | ToolEndEvent
    | ApprovalNeededEvent
    | WarningEvent
    | ErrorEvent
    | SpeakerEvent
    | ReplyEndEvent
    | ProseEvent
    | ChoiceEvent
    | DoneEvent
)

EVENT_TYPES: tuple[str, ...] = (
    "text_delta",
    "text_retract",
    "thinking_delta",
    "tool_start",
    "tool_end",
    "approval_needed",
    "warning",
    "error",
    "speaker",
    "reply_end",
    "prose",
    "choice",
    "done",
)
