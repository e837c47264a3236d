"""Bookkeeping of a beat: what each round leaves in the session, and the running token count.

The loop hands every finished message to a :data:`Recorder` (the app writes it as a session entry at
the active leaf and returns the entry id) and appends the same message to its working history, so the
next round's request sees it without reloading the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from peargarden.providers.base import ToolCall, Usage
from peargarden.sessions.context import ContextMessage

# Persist one chat message (session ``message`` shape); returns the new entry id (or None when unsaved).
Recorder = Callable[[dict[str, Any]], "str | None"]


def no_record(_message: dict[str, Any]) -> str | None:
    return None


def assistant_message(
    text: str,
    reasoning: str,
    calls: list[ToolCall],
    usage: Usage | None,
    model: str,
    stop_reason: str,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning:
        message["reasoning"] = reasoning
    if calls:
        message["tool_calls"] = [{"id": call.id, "name": call.name, "arguments": call.arguments} for call in calls]
    if usage is not None:
        message["usage"] = {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cached_tokens": usage.cached_tokens,
        }
    if model:
        message["model"] = model
    message["stop_reason"] = stop_reason
    if tags:
        message["tags"] = list(tags)
    return message


def tool_message(
    call: ToolCall, text: str, is_error: bool, details: dict[str, Any] | None, tags: list[str] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "tool",
        "tool_call_id": call.id,
        "name": call.name,
        "content": text,
        "is_error": is_error,
    }
    if details is not None:
        message["details"] = details
    if tags:
        message["tags"] = list(tags)
    return message


def context_message(message: dict[str, Any], entry_id: str | None) -> ContextMessage:
    calls = message.get("tool_calls")
    return ContextMessage(
        role=str(message["role"]),
        content=str(message.get("content") or ""),
        entry_id=entry_id,
        name=message.get("name"),
        reasoning=message.get("reasoning"),
        tool_calls=list(calls) if isinstance(calls, list) else [],
        tool_call_id=message.get("tool_call_id"),
        is_error=bool(message.get("is_error", False)),
        tags=list(message.get("tags") or []),
    )


class UsageTotal(msgspec.Struct):
    counts: dict[str, int] = msgspec.field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}
    )

    def add(self, usage: Usage | None) -> None:
        if usage is None:
            return
        self.counts["prompt_tokens"] += usage.prompt_tokens
        self.counts["completion_tokens"] += usage.completion_tokens
        self.counts["cached_tokens"] += usage.cached_tokens
