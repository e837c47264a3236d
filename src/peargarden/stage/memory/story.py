"""The story as bookkeeping reads it: session messages minus work-mode segments, cut into beats.

Items are ``(entry id, message)`` pairs in branch order (message = the session ``message`` shape).
Messages tagged by work mode (``work`` / ``写卡维护``) and hidden ones never reach scene notes,
summaries or recall; tool traces are folded into each beat's final prose by
:func:`peargarden.stage.history.story_turns`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from peargarden.authoring.segments import story_branch

from ..history import story_turns

__all__ = [
    "WORK_TAGS",
    "StoryItem",
    "after",
    "dialogue_lines",
    "is_story",
    "story_items",
    "user_indices",
]

WORK_TAGS = frozenset({"work", "写卡维护", "hidden"})


@dataclass(frozen=True)
class StoryItem:
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
