"""Story history from session messages: the final prose of each beat, no tool traces.

A beat starts at a user message and holds the assistant rounds and tool results that follow.  Its
prose is what the draft sheet ended with — rebuilt by replaying the beat's successful draft tool calls
(``draft_write``/``draft_append``/``draft_edit``/``draft_seal``) — or, when the model never used the
sheet, the text it streamed.  Replaying from the calls needs no extra storage and gives the same text
the user saw sealed.

Messages are plain mappings in the session's ``message`` shape: ``role``, ``content``, and for
assistants ``tool_calls`` (``{"id", "name", "arguments"}``), for tools ``tool_call_id``/``is_error``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from peargarden.errors import PearError

from .ask import AskCard, parse_ask
from .draft import BeatProse, DraftSheet, finish_beat
from .messages import Turn

__all__ = [
    "DRAFT_TOOLS",
    "BeatReading",
    "beat_prose",
    "beat_reading",
    "beat_result",
    "beat_turn",
    "fork_line",
    "replay_draft",
    "story_turns",
]

DRAFT_TOOLS = frozenset({"draft_write", "draft_append", "draft_edit", "draft_seal"})


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def apply_draft_call(sheet: DraftSheet, name: str, args: Mapping[str, Any]) -> None:
    """Apply one draft tool call to *sheet* (raises the sheet's errors)."""
    if name == "draft_write":
        sheet.write(str(args.get("content") or ""))
    elif name == "draft_append":
        sheet.append(str(args.get("content") or ""))
    elif name == "draft_edit":
        sheet.edit(str(args.get("old_text") or ""), str(args.get("new_text") or ""))
    elif name == "draft_seal":
        sheet.seal()


def replay_draft(messages: Sequence[Mapping[str, Any]]) -> DraftSheet:
    """The draft sheet at the end of these messages (one beat's assistant and tool messages)."""
    failed = {str(m.get("tool_call_id")) for m in messages if m.get("role") == "tool" and m.get("is_error") is True}
    explicit = any(
        isinstance(call, Mapping) and call.get("name") in DRAFT_TOOLS and str(call.get("id")) not in failed
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    )
    sheet = DraftSheet()
    for message in messages:
        if message.get("role") != "assistant":
            continue
        text = str(message.get("content") or "")
        if explicit:
            # Like the live sheet, which never sees streamed text: it only feeds the format tail.
            if text:
                sheet.streamed.append(text)
        else:
            sheet.capture(text)
        for call in message.get("tool_calls") or []:
            if not isinstance(call, Mapping) or call.get("name") not in DRAFT_TOOLS:
                continue
            if str(call.get("id")) in failed:
                continue
            try:
                apply_draft_call(sheet, str(call.get("name")), _args(call.get("arguments")))
            except PearError:
                continue  # the tool refused it at the time too
    return sheet


def beat_result(messages: Sequence[Mapping[str, Any]]) -> BeatProse:
    """A finished beat's prose, whether it was sealed, and the warnings for the user
    (``本拍模型未交出任何正文`` / ``稿件已保存，本拍尚未收笔``).  Fronts show this after a beat."""
    return finish_beat(replay_draft(messages))


def beat_prose(messages: Sequence[Mapping[str, Any]]) -> str:
    return beat_result(messages).text


def fork_line(messages: Sequence[Mapping[str, Any]]) -> str:
    """``【岔口】question（A／B）`` when the beat ended by handing a choice to the user, else ``""``.

    The answer arrives as the next user message; without this line the model would not see what it
    had asked."""
    failed = {str(m.get("tool_call_id")) for m in messages if m.get("role") == "tool" and m.get("is_error") is True}
    line = ""
    for message in messages:
        for call in message.get("tool_calls") or [] if message.get("role") == "assistant" else []:
            if isinstance(call, Mapping) and call.get("name") == "ask" and str(call.get("id")) not in failed:
                try:
                    card = parse_ask(_args(call.get("arguments")))
                except PearError:
                    continue
                line = f"【岔口】{card.question}（{'／'.join(card.options)}）"
    return line


class BeatReading(msgspec.Struct, frozen=True):
    """What a reader of a finished beat reads, and on which of its messages a page shows it: the
    draft's prose on the last message that wrote to the sheet (*prose_at*, an index into the beat),
    the fork on the message that asked (*choice_at*).  ``None`` where the beat has neither: a beat
    whose model never used the sheet shows its streamed text as it is."""

    prose: str = ""
    prose_at: int | None = None
    choice: AskCard | None = None
    choice_at: int | None = None


def _good_calls(beat: Sequence[Mapping[str, Any]]) -> list[tuple[int, Mapping[str, Any]]]:
    """(message index, call) of every tool call of the beat whose result was not an error."""
    failed = {str(m.get("tool_call_id")) for m in beat if m.get("role") == "tool" and m.get("is_error") is True}
    return [
        (index, call)
        for index, message in enumerate(beat)
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
        if isinstance(call, Mapping) and str(call.get("id")) not in failed
    ]


def beat_reading(beat: Sequence[Mapping[str, Any]]) -> BeatReading:
    """The reader's view of one beat's assistant and tool messages (see :class:`BeatReading`)."""
    calls = _good_calls(beat)
    drafts = [index for index, call in calls if call.get("name") in DRAFT_TOOLS]
    prose = beat_prose(beat) if drafts else ""
    choice: AskCard | None = None
    choice_at: int | None = None
    for index, call in calls:
        if call.get("name") == "ask":
            try:
                choice, choice_at = parse_ask(_args(call.get("arguments"))), index
            except PearError:
                continue
    return BeatReading(prose, drafts[-1] if prose else None, choice, choice_at)


def beat_turn(beat: Sequence[Mapping[str, Any]]) -> Turn | None:
    """One beat's assistant turn in the story: its prose and its fork line (``None`` when both are
    empty).  A function of the beat's messages alone, so a caller may keep it per beat."""
    prose = "\n\n".join(part for part in (beat_prose(beat), fork_line(beat)) if part)
    return Turn("assistant", prose) if prose else None


def story_turns(messages: Sequence[Mapping[str, Any]]) -> list[Turn]:
    """User words and beat prose, in order (roles other than user/assistant/tool are ignored)."""
    turns: list[Turn] = []
    beat: list[Mapping[str, Any]] = []

    def flush() -> None:
        if beat:
            turn = beat_turn(beat)
            if turn is not None:
                turns.append(turn)
            beat.clear()

    for message in messages:
        role = message.get("role")
        if role == "user":
            flush()
            turns.append(Turn("user", str(message.get("content") or "")))
        elif role in ("assistant", "tool"):
            beat.append(message)
    flush()
    return turns
