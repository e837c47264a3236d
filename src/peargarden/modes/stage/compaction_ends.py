"""The compaction plan of a long history, read at its two ends.

A history never summarised (an import of thousands of beats) compacts one bounded step per beat;
planning a step derived the whole story after the summary every time.  The plan needs less: the
oldest due beats up to the side request's budget (the head), the newest beats for the kept rounds
and the token check (the tail), and how many user turns lie between them (counted from the
entries' lines, :func:`.story_count.story_users`).  :func:`plan_from_ends` gives the plan
:func:`~peargarden.stage.memory.compaction.plan_compaction` gives over the whole story after the
summary, or ``None`` when the ends do not decide it (a short history, a plan that reaches past the
head, a token check that needs the middle): then the caller reads the whole story as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from peargarden.sessions import Entry
from peargarden.stage.memory.compaction import CompactionPlan, plan_compaction
from peargarden.stage.memory.story import StoryItem, beat_start, story_items, story_since, tokens_over, user_indices
from peargarden.text.tokens import TextCounter

from .story_count import story_users

__all__ = ["HEAD_SIZES", "TAIL_MESSAGES", "plan_from_ends"]

# Messages read at the start of what is due (grown while the plan reaches past them), and at the end.
HEAD_SIZES = (512, 2048, 8192)
TAIL_MESSAGES = 256


def _items(entries: Sequence[Entry]) -> list[StoryItem]:
    return story_items([StoryItem(entry.id, entry.message) for entry in entries])


def plan_from_ends(
    messages: Sequence[Entry],
    covers: str | None,
    *,
    keep_rounds: int,
    every: int,
    min_chars_over: int,
    min_chars: int,
    budget: int,
    count: TextCounter,
    limit: int,
) -> CompactionPlan | None:
    """``plan_compaction(live, over_budget=tokens_over(live, count, limit), min_chars=min_chars_over
    if over else min_chars, …)`` with ``live = story_since(messages, covers)``, when the history's
    ends decide it (else ``None``: nothing decided, not "nothing due")."""
    covered_at = len(messages) - 1 if covers is not None else -1  # never summarised: nothing to find
    while covered_at >= 0 and messages[covered_at].id != covers:
        covered_at -= 1
    if len(messages) <= TAIL_MESSAGES:
        return None
    tail_start = beat_start(messages, len(messages) - TAIL_MESSAGES)
    tail = _items(messages[tail_start:])
    tail_users = user_indices(tail)
    if not tail_users or len(tail_users) < keep_rounds:
        return None
    # The tail from its first user item on holds the story's newest beats exactly.
    over = tokens_over(tail[tail_users[0] :], count, limit)
    for size in HEAD_SIZES:
        head_end = beat_start(messages, min(max(covered_at, 0) + size, tail_start))
        if not covered_at < head_end < tail_start:
            return None
        head = story_since(messages[:head_end], covers)
        head_users = user_indices(head)
        if len(head_users) < 2:
            continue
        skipped = story_users(messages[head_end:tail_start])
        total = len(head_users) + skipped + len(tail_users)
        if not over and not (every > 0 and total >= keep_rounds + every):
            return None  # due by budget only: the token check would need the middle
        # Not over (as far as the tail shows) but due by count: the plan is the same either way
        # when what is due is long enough for both minimums.
        plan = plan_compaction(
            [*head, *tail],
            keep_rounds=keep_rounds,
            every=every,
            over_budget=over,
            min_chars=min_chars_over if over else max(min_chars_over, min_chars),
            budget=budget,
            count=count,
            skipped_users=skipped,
        )
        if plan is None:
            return None
        # The beat that went over the budget ends before the head's last beat starts: the same
        # beats as in the whole story.
        if len(plan.covered) < head_users[-1]:
            return plan
    return None
