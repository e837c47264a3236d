"""Requests around work mode: the work-mode builder, and the role-play view of a chat with work beats.

Work mode (:func:`work_builder`): the system prompt is the data folder's ``AUTHORING.md`` plus the
working directory and the card file (:func:`authoring_system`); the history replays work beats as
they happened (assistant tool calls, tool results — the model needs its own operations) and story
beats as prose, since for the card author the story is material, not a task.

Role play (:func:`with_role_play_view`): wraps a stage or tavern builder so it never sees a work
beat — only its 【写卡维护】 lines (:func:`peargarden.authoring.segments.role_play_plan`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from peargarden.agent.loop import BeatInput, BuiltRequest, RequestBuilder
from peargarden.authoring.segments import (
    MODE_SWITCH_TOOL,
    PERIPHERAL_TAG,
    WORK_TAGS,
    Peripheral,
    role_play_plan,
    work_mask,
)
from peargarden.providers.base import ChatRequest
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.scan import MessageScan
from peargarden.stage.history import story_turns

__all__ = [
    "as_message",
    "authoring_system",
    "may_be_work",
    "role_play_history",
    "with_role_play_view",
    "work_builder",
    "work_messages",
    "work_scan",
]


def as_message(message: ContextMessage) -> dict[str, Any]:
    """A context message in the session ``message`` shape (what the segment functions read)."""
    return message.to_message()


def authoring_system(prompt: str, cwd: Path, card_file: Path | None) -> str:
    card = str(card_file) if card_file is not None else "（这张卡还没有卡文件）"
    return f"{prompt.strip()}\n\n工作目录：{cwd}\n当前角色卡：{card}"


def work_messages(history: Sequence[ContextMessage]) -> list[dict[str, Any]]:
    """The branch for the work-mode model: story runs as prose turns, work beats message by message."""
    visible = [m for m in history if not m.hidden]
    views = [as_message(m) for m in visible]
    out: list[dict[str, Any]] = []
    story: list[dict[str, Any]] = []

    def flush() -> None:
        out.extend({"role": turn.role, "content": turn.text} for turn in story_turns(story) if turn.text.strip())
        story.clear()

    for message, view, work in zip(visible, views, work_mask(views), strict=True):
        if work:
            flush()
            out.append(message.to_openai())
        else:
            story.append(view)
    flush()
    return out


def work_builder(system: str) -> RequestBuilder:
    def build(inp: BeatInput) -> BuiltRequest:
        messages = [{"role": "system", "content": system}, *work_messages(inp.history)]
        tools = [] if inp.kind == "impersonate" else list(inp.tools)
        return BuiltRequest(ChatRequest(messages=messages, tools=tools))

    return build


def may_be_work(message: ContextMessage) -> bool:
    """Whether *message* may belong to a work beat (a work tag, or a mode-switch call)."""
    if message.tags and not WORK_TAGS.isdisjoint(message.tags):
        return True
    return any(call.get("name") == MODE_SWITCH_TOOL for call in message.tool_calls)


def work_scan() -> MessageScan:
    """The chat's memo of :func:`may_be_work` (kept between beats: see :func:`role_play_history`)."""
    return MessageScan(may_be_work, marked_only=True)  # a work tag or a mode-switch call


def role_play_history(history: Sequence[ContextMessage], scan: MessageScan | None = None) -> list[ContextMessage]:
    """*history* with each work beat replaced by its 【写卡维护】 lines (story messages untouched);
    a history without work is given back as it is (builders only read what they are given).

    *scan*: the chat's :func:`work_scan`, so that the common case, checked on every round of a long
    chat (no message that may be work), tests only the messages new since the last round."""
    if scan is not None:
        clean = not scan(history)
    else:
        # Only messages with tags or tool calls can be work, and most have neither.
        clean = not any(may_be_work(m) for m in history if m.tags or m.tool_calls)
    if clean:
        return history if isinstance(history, list) else list(history)
    out: list[ContextMessage] = []
    for step in role_play_plan(history, as_message):
        if isinstance(step, Peripheral):
            anchor = history[step.anchor]
            out.append(ContextMessage(step.role, step.text, anchor.entry_id, tags=[PERIPHERAL_TAG]))
        else:
            out.append(history[step])
    return out


def with_role_play_view(builder: RequestBuilder, scan: MessageScan | None = None) -> RequestBuilder:
    """*builder* over :func:`role_play_history` (*scan*: the chat's :func:`work_scan`)."""

    def build(inp: BeatInput) -> ChatRequest | BuiltRequest:
        return builder(replace(inp, history=role_play_history(inp.history, scan)))

    return build
