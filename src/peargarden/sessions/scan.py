"""Which messages of a chat's history pass a test, kept from beat to beat.

A request builder asks the same question of the whole history on every beat (which messages are
hidden, does any look like a work beat), and the answer is almost always "none": a 20,000-message
chat paid a pass over every message for it.  :class:`MessageScan` keeps the answer for the list it
was last given and, when the next list starts with the same messages, tests only the rest.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Sequence

from .context import ContextMessage

__all__ = ["MessageScan", "shared_start", "without"]


def shared_start(messages: Sequence[ContextMessage], known: Sequence[ContextMessage]) -> int:
    """How many leading messages of *messages* are those of *known*.

    Equal lists (the same message objects, as the session's context memo hands out beat after beat)
    are recognised in one comparison at C speed (a list compares items by identity first, then by
    value: an equal message answers every test the same); otherwise the messages are compared by
    identity up to the first that differs.
    """
    count = len(known)
    if len(messages) >= count and messages[:count] == known:
        return count
    same = list(map(operator.is_, messages, known))
    return same.index(False) if False in same else len(same)


def without(messages: Sequence[ContextMessage], indices: Sequence[int]) -> list[ContextMessage]:
    """*messages* without those at *indices* (ascending), as slices: a copy when there are none."""
    out: list[ContextMessage] = []
    start = 0
    for index in indices:
        out += messages[start:index]
        start = index + 1
    out += messages[start:]
    return out


class MessageScan:
    """The indices of the messages that pass *test*, remembered for the list last scanned.

    *test* must read only the message's fields (messages are never changed once made: the context
    memo shares them between beats).  A list that starts with the messages of the last one (the
    chat grew) is tested only after them; one that differs from some point on (a swipe, a branch,
    an edit, a deletion, a compaction) is tested from that point.  The result equals
    ``[i for i, m in enumerate(messages) if test(m)]`` (``tests/sessions/test_sessions_scan.py``).
    """

    def __init__(self, test: Callable[[ContextMessage], bool], *, marked_only: bool = False) -> None:
        """*marked_only*: *test* is false for every message without tags and tool calls (both scans
        a request builder runs, hidden and work, are), so those are passed over without calling it:
        a new process's first beat on a long chat scans every message, nearly none of them marked."""
        self._test = test
        self._marked_only = marked_only
        self._lock = threading.Lock()
        self._known: list[ContextMessage] = []
        self._found: list[int] = []

    def __call__(self, messages: Sequence[ContextMessage]) -> list[int]:
        test = self._test
        with self._lock:
            # The kept list is changed in place, not copied: a new list of every message on each
            # beat is work for the garbage collector's young generation, which walks all of it.
            known = self._known
            same = shared_start(messages, known)
            if same < len(known):
                del known[same:]
                self._found = [index for index in self._found if index < same]
            new = messages[same:]
            known.extend(new)
            if self._marked_only:
                self._found += [
                    index
                    for index, message in enumerate(new, same)
                    if (message.tags or message.tool_calls) and test(message)
                ]
            else:
                self._found += [index for index, message in enumerate(new, same) if test(message)]
            return list(self._found)
