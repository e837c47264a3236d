"""What a page shows of a finished stage beat: its prose and its fork, on the messages that made them.

A stage beat's messages are tool calls (``draft_write`` … ``draft_seal``, ``ask``); the prose the
reader saw while it ran came as a reader event.  Once the beat is saved, a page drawing its messages
would show only the calls' arguments, so each window row that ends a beat's draft carries the prose
(and the row that asked, the fork) from :func:`peargarden.stage.history.beat_reading` over the whole
beat — read from the branch, also where the window starts inside it.  A card's chat: a beat runs from
one user message to the next; a group's (``split_replies``): each speaker's run of replies is a beat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from peargarden.sessions.entries import Entry
from peargarden.stage.history import beat_reading

__all__ = ["RowReading", "row_readings"]


class RowReading(msgspec.Struct, frozen=True):
    prose: str | None = None
    choice: dict[str, Any] | None = None  # {"question", "options", "free_text"}
    step: bool = False  # an earlier round of a beat that shows its prose or fork on another row


def _in_beat(entry: Entry) -> bool:
    return entry.role in ("assistant", "tool")


def _speaker(entry: Entry) -> object:
    return entry.message.get("name")


def _bounds(entries: Sequence[Entry], index: int, split_replies: bool) -> tuple[int, int]:
    """The beat around the assistant message at *index*: the assistant and tool messages next to it
    (in a group, only the assistant messages of its speaker, with their tools' results)."""
    speaker = _speaker(entries[index])

    def belongs(entry: Entry) -> bool:
        if not _in_beat(entry):
            return False
        return not split_replies or entry.role == "tool" or _speaker(entry) == speaker

    first = index
    while first > 0 and belongs(entries[first - 1]):
        first -= 1
    last = index + 1
    while last < len(entries) and belongs(entries[last]):
        last += 1
    return first, last


def _calls_tools(entry: Entry) -> bool:
    return entry.role == "assistant" and bool(entry.message.get("tool_calls"))


def row_readings(
    entries: Sequence[Entry], start: int, end: int, *, split_replies: bool = False
) -> dict[int, RowReading]:
    """Branch index → what the row shows of its beat, for the rows ``entries[start:end]`` that show one
    (rows of the beat before *start* may be in it too: the window's page ignores them)."""
    found: dict[int, RowReading] = {}
    index = start
    while index < end:
        if not _calls_tools(entries[index]):
            index += 1
            continue
        first, last = _bounds(entries, index, split_replies)
        reading = beat_reading([{**entry.message, "role": entry.role} for entry in entries[first:last]])
        if reading.prose_at is None and reading.choice_at is None:
            index = last
            continue
        for at in range(first, last):
            if _calls_tools(entries[at]):
                found[at] = RowReading(step=True)
        if reading.prose_at is not None:
            found[first + reading.prose_at] = RowReading(prose=reading.prose)
        if reading.choice is not None and reading.choice_at is not None:
            card = reading.choice
            where = first + reading.choice_at
            choice = {"question": card.question, "options": list(card.options), "free_text": card.free_text}
            shown = found[where]
            found[where] = RowReading(prose=shown.prose, choice=choice, step=False)
        index = last
    return found
