"""Work-mode segments of a chat branch: which messages are story and which are 写卡维护 (card upkeep).

A chat is cut into beats: a beat starts at a user message and holds the assistant rounds and tool
results after it (messages before the first user message — the greeting — form a beat of their own).
A beat belongs to work mode when any of its messages carries a work tag (the loop tags what it records
in work mode, the service tags the user's words sent in work mode) or when the model switched into
work mode during it (``conversation_mode`` with ``mode: "authoring"``): the user message that caused
the switch is claimed for work mode afterwards, like everything before the switch in that beat.

- :func:`story_branch` is the one source for story context, scene notes, summaries and memory: the
  messages of the story beats only.
- :func:`role_play_plan` is what the role-play request sees: story messages as they are, and each
  work beat as at most two peripheral lines — the user's words and the work agent's final answer,
  prefixed 【写卡维护】 — with no tool process, and file names replaced by （文件）.

Messages are read through a getter returning the session ``message`` shape (``role``, ``content``,
``tags``, ``tool_calls`` with ``{"id", "name", "arguments"}``, ``tool_call_id``, ``is_error``).
Pure: no I/O.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import msgspec

__all__ = [
    "FILE_PLACEHOLDER",
    "MODE_SWITCH_TOOL",
    "PERIPHERAL_TAG",
    "REPLY_PREFIX",
    "USER_PREFIX",
    "WORK_TAG",
    "WORK_TAGS",
    "Peripheral",
    "beats",
    "role_play_plan",
    "starts_beat",
    "story_branch",
    "switch_target",
    "without_file_names",
    "work_mask",
]

T = TypeVar("T")

WORK_TAG = "work"
# Tags that mark a message as work mode (``写卡维护`` is accepted for data written by other fronts).
WORK_TAGS = frozenset({WORK_TAG, "写卡维护"})
# The tag on the peripheral lines the role-play context gets (never stored; not a work tag, so
# filters that drop work messages keep them).
PERIPHERAL_TAG = "work-note"
MODE_SWITCH_TOOL = "conversation_mode"
USER_PREFIX = "【写卡维护】（用户对写卡 agent 说）"
REPLY_PREFIX = "【写卡维护】（写卡 agent 的答复）"

Getter = Callable[[Any], Mapping[str, Any]]


def _identity(item: Any) -> Mapping[str, Any]:
    return item  # type: ignore[no-any-return]


class Peripheral(msgspec.Struct, frozen=True):
    """A line the role-play context sees for a work beat; ``anchor`` is the index of the message it
    stands for (its entry id keeps summaries' "covered through" marks meaningful)."""

    role: str
    text: str
    anchor: int


# A file name (optionally with folders) as a work agent writes it in its answer, possibly in backticks.
# Compiled on first use: case-folding the CJK ranges takes ~10 ms, a tenth of what importing the
# stage costs, and only a chat with work-mode beats needs it.
@functools.cache
def _file_name() -> re.Pattern[str]:
    return re.compile(
        r"`?(?:~?/)?(?:[\w.\-\u3400-\u9fff]+/)*[\w\-\u3400-\u9fff][\w.\-\u3400-\u9fff]*"
        r"\.(?:txt|js|mjs|cjs|ts|html?|css|json|jsonl|md|png|webp|jpe?g|py|sh|ya?ml|toml|card)\b`?",
        re.IGNORECASE,
    )


FILE_PLACEHOLDER = "（文件）"


def without_file_names(text: str) -> str:
    """*text* with file names replaced by （文件）: the story side never sees the workshop's files."""
    return _file_name().sub(FILE_PLACEHOLDER, text)


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


def switch_target(call: Mapping[str, Any]) -> str | None:
    """``"authoring"`` / ``"roleplay"`` for a ``conversation_mode`` call, else ``None``."""
    if call.get("name") != MODE_SWITCH_TOOL:
        return None
    mode = _args(call.get("arguments")).get("mode")
    return mode if mode in ("authoring", "roleplay") else None


def _is_tagged(message: Mapping[str, Any]) -> bool:
    tags = message.get("tags")
    return isinstance(tags, list) and any(tag in WORK_TAGS for tag in tags)


def starts_beat(message: Mapping[str, Any]) -> bool:
    """Whether *message* starts a beat (a user message that is not a compaction's summary)."""
    tags = message.get("tags")
    compaction = isinstance(tags, list) and "compaction" in tags
    return message.get("role") == "user" and not compaction


def beats(messages: Sequence[T], get: Getter = _identity) -> list[list[int]]:
    """Indices of *messages* grouped by beat, in order."""
    groups: list[list[int]] = []
    for index, item in enumerate(messages):
        if not groups or starts_beat(get(item)):
            groups.append([])
        groups[-1].append(index)
    return groups


def _switched_in(beat: Sequence[Mapping[str, Any]]) -> bool:
    failed = {str(m.get("tool_call_id")) for m in beat if m.get("role") == "tool" and m.get("is_error") is True}
    for message in beat:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if isinstance(call, Mapping) and switch_target(call) == "authoring" and str(call.get("id")) not in failed:
                return True
    return False


def _may_be_work(message: Mapping[str, Any]) -> bool:
    """A message that could make its beat a work beat: a work tag, or tool calls (a switch)."""
    return bool(message.get("tool_calls")) or _is_tagged(message)


def _is_work_beat(beat: Sequence[Mapping[str, Any]]) -> bool:
    return any(_is_tagged(m) for m in beat) or _switched_in(beat)


def work_mask(messages: Sequence[T], get: Getter = _identity) -> list[bool]:
    """``True`` for every message that belongs to a work beat."""
    mask = [False] * len(messages)
    if not any(map(_may_be_work, map(get, messages))):
        return mask  # the common chat, read once: no work tag and no tool call anywhere
    for group in beats(messages, get):
        if _is_work_beat([get(messages[i]) for i in group]):
            for index in group:
                mask[index] = True
    return mask


def story_branch(messages: Sequence[T], get: Getter = _identity) -> list[T]:
    """The story: *messages* without the work beats (same objects, same order)."""
    mask = work_mask(messages, get)
    return [item for item, work in zip(messages, mask, strict=True) if not work]


def role_play_plan(messages: Sequence[T], get: Getter = _identity) -> list[int | Peripheral]:
    """What the role-play request is built from: indices of story messages, and for each work beat
    the user's words and the work agent's last answer as :class:`Peripheral` lines."""
    plan: list[int | Peripheral] = []
    for group in beats(messages, get):
        views = [get(messages[i]) for i in group]
        if not _is_work_beat(views):
            plan.extend(group)
            continue
        first = views[0]
        if first.get("role") == "user" and str(first.get("content") or "").strip():
            words = without_file_names(str(first.get("content")).strip())
            plan.append(Peripheral("user", USER_PREFIX + words, group[0]))
        for index, view in zip(reversed(group), reversed(views), strict=True):
            text = str(view.get("content") or "").strip()
            if view.get("role") == "assistant" and text:
                plan.append(Peripheral("assistant", REPLY_PREFIX + without_file_names(text), index))
                break
    return plan
