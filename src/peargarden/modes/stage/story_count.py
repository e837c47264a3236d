"""How many user turns a run of the branch adds to the story, read from the entries' lines.

Compaction of a long history never summarised (an import of thousands of beats) says how many beats
are still due after each step; counting them by deriving the story decoded every message's body.
A story user item is a ``user`` message without a work tag (``stage.memory.story.is_story``) outside
a work beat (``authoring.segments.story_branch``).  When no message of the run has a tool call or a
work-mode tag, no beat of it is a work beat, and the count needs only each message's role and tags:
those are decoded from the line (its text is skipped).  Anything else is counted the long way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from peargarden.authoring.segments import WORK_TAGS as WORK_MODE_TAGS
from peargarden.sessions import Entry
from peargarden.stage.memory.story import WORK_TAGS, StoryItem, story_items, user_indices

__all__ = ["story_users"]


class _Shape(msgspec.Struct):
    role: Any = None
    tags: Any = None
    tool_calls: Any = None


class _ShapeLine(msgspec.Struct):
    message: _Shape


_SHAPE = msgspec.json.Decoder(_ShapeLine)


def _shape(entry: Entry) -> tuple[Any, Any, Any]:
    """(role, tags, tool calls) of a message entry, from what this beat's context noted when it can."""
    known = entry.shape  # the context of this beat read the line already
    if known is not None:
        return known
    line = entry.raw_line()
    if line is not None:
        try:
            shape = _SHAPE.decode(line).message
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass
        else:
            return shape.role, shape.tags, shape.tool_calls
    message = entry.message
    return message.get("role"), message.get("tags"), message.get("tool_calls")


def _tagged(tags: object, names: frozenset[str]) -> bool:
    return isinstance(tags, list | tuple) and any(tag in names for tag in tags)


def story_users(entries: Sequence[Entry]) -> int:
    """``len(user_indices(story_items(items of entries)))`` for message *entries* that start at a beat.

    One pass of plain comparisons: it runs over nearly every message of a long chat on each beat
    (the middle of the history, between the ends the compaction plan reads), and most messages
    have no tags at all."""
    count = 0
    for role, tags, calls in map(_shape, entries):
        if calls or (tags and _tagged(tags, WORK_MODE_TAGS)):
            return len(user_indices(story_items([StoryItem(entry.id, entry.message) for entry in entries])))
        if role == "user" and not (tags and _tagged(tags, WORK_TAGS)):
            count += 1
    return count
