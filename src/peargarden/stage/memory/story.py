"""The story as bookkeeping reads it: session messages minus work-mode segments, cut into beats.

Items are ``(entry id, message)`` pairs in branch order (message = the session ``message`` shape).
Messages tagged by work mode (``work`` / ``写卡维护``) and hidden ones never reach scene notes,
summaries or recall; tool traces are folded into each beat's final prose by
:func:`peargarden.stage.history.story_turns`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import msgspec

from peargarden.authoring.segments import starts_beat, story_branch

from ..history import story_turns

__all__ = [
    "WORK_TAGS",
    "BranchMessage",
    "StoryItem",
    "after",
    "beat_start",
    "dialogue_lines",
    "is_story",
    "last_beat",
    "story_items",
    "story_since",
    "tokens_over",
    "user_indices",
]

WORK_TAGS = frozenset({"work", "写卡维护", "hidden"})


class StoryItem(msgspec.Struct, frozen=True):
    entry_id: str
    message: Mapping[str, Any]

    @property
    def role(self) -> str:
        return str(self.message.get("role") or "")


def is_story(message: Mapping[str, Any]) -> bool:
    tags = message.get("tags")
    if isinstance(tags, list) and any(tag in WORK_TAGS for tag in tags):
        return False
    return message.get("role") in ("user", "assistant", "tool")


def story_items(items: Sequence[StoryItem]) -> list[StoryItem]:
    # Whole work beats go, not only their tagged messages: the user message that made the model
    # switch into work mode is part of the work beat although it was sent in role play.
    story = story_branch(items, lambda item: item.message)
    return [item for item in story if is_story(item.message)]


class BranchMessage(Protocol):
    """A message entry of the branch as the readers below take it (its body decoded on first use)."""

    @property
    def id(self) -> str: ...

    @property
    def message(self) -> Mapping[str, Any]: ...


def _items(messages: Sequence[BranchMessage]) -> list[StoryItem]:
    return story_items([StoryItem(entry.id, entry.message) for entry in messages])


def beat_start(messages: Sequence[BranchMessage], index: int) -> int:
    """The nearest index at or before *index* where a message starts a beat (0 when none)."""
    while index > 0 and not starts_beat(messages[index].message):
        index -= 1
    return max(index, 0)


# How many messages from the end a read of the branch's end starts with (×4 while that is short).
TAIL_MESSAGES = 16


def last_beat(messages: Sequence[BranchMessage]) -> list[StoryItem]:
    """The story's last beat (from its last user item on; the whole story when it has none) of the
    branch's *messages*, read from their end: ``story_items(messages)`` from its last user item.

    The story of messages that start at a beat is the end of the whole story (:func:`story_items`
    judges beat by beat), so a long chat's last beat is found in its last few beats."""
    size = TAIL_MESSAGES
    while True:
        start = beat_start(messages, len(messages) - size) if len(messages) > size else 0
        items = _items(messages[start:])
        users = user_indices(items)
        if users:
            return items[users[-1] :]
        if start == 0:
            return items
        size *= 4


def story_since(messages: Sequence[BranchMessage], entry_id: str | None) -> list[StoryItem]:
    """``after(story_items(messages), entry_id)``, deriving the story only from the beat that holds
    *entry_id* (a summary's last covered item: after it comes what is not summarised yet)."""
    if entry_id is None:
        return _items(messages)
    index = len(messages) - 1
    while index >= 0 and messages[index].id != entry_id:
        index -= 1
    if index < 0:
        return _items(messages)  # not on the branch: all of it, as after() gives
    items = _items(messages[beat_start(messages, index) :])
    for position, item in enumerate(items):
        if item.entry_id == entry_id:
            return items[position + 1 :]
    return _items(messages)  # not a story item: all of it, as after() gives


def tokens_over(items: Sequence[StoryItem], count: Callable[[str], int], limit: int) -> bool:
    """Whether the story turns of *items* take more than *limit* tokens (3 + the text's, per turn),
    counted newest → oldest beat by beat and stopped as soon as they do."""
    used = 0
    end = len(items)
    for index in range(len(items) - 1, -1, -1):
        if items[index].role == "user" or index == 0:
            used += sum(3 + count(turn.text) for turn in story_turns([item.message for item in items[index:end]]))
            if used > limit:
                return True
            end = index
    return used > limit


def after(items: Sequence[StoryItem], entry_id: str | None) -> list[StoryItem]:
    """The items after *entry_id* (all of them when it is ``None`` or not among them)."""
    if entry_id is None:
        return list(items)
    for index, item in enumerate(items):
        if item.entry_id == entry_id:
            return list(items[index + 1 :])
    return list(items)


def user_indices(items: Sequence[StoryItem]) -> list[int]:
    return [index for index, item in enumerate(items) if item.role == "user"]


def dialogue_lines(items: Sequence[StoryItem], user_name: str, char_name: str) -> list[str]:
    """``名：正文`` per turn (final prose only), the way the keeper and the summariser read a story."""
    turns = story_turns([item.message for item in items])
    return [
        f"{user_name if turn.role == 'user' else char_name}：{turn.text.strip()}" for turn in turns if turn.text.strip()
    ]
