"""The story replay of a stage chat, remembered between beats.

Every stage request replays the whole story as prose (:func:`peargarden.stage.history.story_turns`):
each beat's draft calls are run again to get the text the user saw sealed.  A finished beat never
changes (session entries are append-only and never edited in place), so :class:`StoryProse` keeps each
beat's turn per chat, keyed by the beat's messages (entry id and text): a new message, a swipe or a
branch gives a new key and only that beat is derived again.  Messages without an entry id are never
cached.  The result is the same list :func:`story_turns` returns (``tests/agent`` pins that).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from peargarden.sessions.context import ContextMessage
from peargarden.sessions.scan import shared_start
from peargarden.stage import Turn
from peargarden.stage.history import beat_turn

__all__ = ["StoryProse", "message_view"]

# Beat key → its turn (``None``: the beat left no prose).
_Key = tuple[tuple[str, str], ...]


def message_view(message: ContextMessage) -> dict[str, Any]:
    """A context message in the session ``message`` shape :mod:`peargarden.stage.history` reads."""
    return message.to_message()


def _beat_key(beat: Sequence[ContextMessage]) -> _Key | None:
    key: list[tuple[str, str]] = []
    for message in beat:
        if message.entry_id is None:
            return None
        key.append((message.entry_id, message.content))
    return tuple(key)


class StoryProse:
    """Per-chat memo of beat turns; :meth:`story_turns` equals ``story_turns`` over the same messages."""

    def __init__(self) -> None:
        self._turns: dict[_Key, Turn | None] = {}
        self._lock = threading.Lock()
        # How many newest messages the last budgeted beat derived (see modes/stage/story.py).
        self.window = 0
        # The messages before the last counted point, and how many turns they make (count_turns).
        self._counted: list[ContextMessage] = []
        self._counted_turns = 0
        self._count_lock = threading.Lock()  # _derive takes self._lock

    def __len__(self) -> int:
        return len(self._turns)

    def count_turns(self, messages: Sequence[ContextMessage], end: int) -> int:
        """``len(self.story_turns(messages[:end]))``, where *messages[end]* is a user message (a beat
        boundary: the turns before it do not depend on what follows, and the turns from it on are
        those of ``messages[end:]`` alone).  The count is remembered: when the messages counted
        last time are the same as these up to a point (compared at C speed), only the messages
        between that point and *end* are derived — after it when the chat grew, before it when the
        window of a budgeted beat reaches further back than last time."""
        with self._count_lock:
            # The counted messages are kept in one list changed in place (a new list of every
            # message on each beat is work for the garbage collector's young generation).
            known = self._counted
            same = shared_start(messages, known)
            if same == len(known) <= end:
                self._counted_turns += self._count(messages[same:end])
                known.extend(messages[same:end])
            elif end < same or (end == same < len(known) and known[end].role == "user"):
                # known[end] is a user message and known[:end] is messages[:end]: the count splits there.
                self._counted_turns -= self._count(known[end:])
                del known[end:]
            else:
                self._counted_turns = self._count(messages[:end])
                known[:] = messages[:end]
            return self._counted_turns

    def _count(self, messages: Sequence[ContextMessage]) -> int:
        """``len(self.story_turns(messages))`` without the prose: a beat without tool calls has a
        turn exactly when one of its assistant messages has text (``beat_turn``: the rounds' text
        is the draft, and only a tool call gives a fork line), so only beats with tool calls are
        replayed.  (A new process's first beat on a 20,000-message chat counts ~10,000 beats: one
        pass of plain comparisons, no list per beat.)"""
        count = 0
        start = 0
        calls = text = False
        for index, message in enumerate(messages):
            role = message.role
            if role == "user":
                count += 1 + self._beat_turns(messages, start, index, calls, text)
                start, calls, text = index + 1, False, False
            elif role == "assistant":
                calls = calls or bool(message.tool_calls)
                # ``content.strip()`` without the copy: text that is not all whitespace
                text = text or (bool(message.content) and not message.content.isspace())
            elif role == "tool":
                calls = calls or bool(message.tool_calls)
        return count + self._beat_turns(messages, start, len(messages), calls, text)

    def _beat_turns(self, messages: Sequence[ContextMessage], start: int, end: int, calls: bool, text: bool) -> int:
        """The turns of the beat ``messages[start:end]`` (no user message in it) leaves."""
        if calls:
            beat = [m for m in messages[start:end] if m.role in ("assistant", "tool")]
            return len(self._derive(beat, prune=False))
        return 1 if text else 0

    def story_turns(self, messages: Sequence[ContextMessage]) -> list[Turn]:
        """User words and beat prose, in order (roles other than user/assistant/tool are ignored)."""
        return self._derive(messages, prune=True)

    def _derive(self, messages: Sequence[ContextMessage], *, prune: bool) -> list[Turn]:
        # prune: keep only what these messages use (a story request); a count only adds.
        with self._lock:
            known = self._turns
            used: dict[_Key, Turn | None] = {}
            turns: list[Turn] = []
            beat: list[ContextMessage] = []

            def flush() -> None:
                if not beat:
                    return
                key = _beat_key(beat)
                if key is None:
                    turn = beat_turn([message_view(m) for m in beat])
                elif key in known:
                    turn = used[key] = known[key]
                else:
                    turn = used[key] = beat_turn([message_view(m) for m in beat])
                if turn is not None:
                    turns.append(turn)
                beat.clear()

            for message in messages:
                role = message.role
                if role == "user":
                    flush()
                    turns.append(Turn("user", message.content))
                elif role in ("assistant", "tool"):
                    beat.append(message)
            flush()
            # Keep what this branch uses (plus what other branches left, until it outgrows it).
            if prune and len(known) > 2 * len(used) + 64:
                self._turns = used
            else:
                known.update(used)
            return turns
