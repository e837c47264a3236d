"""Story memory as one stage beat sees it, and how it changes the beat's request.

The app builds a :class:`StoryView` from the branch (ledger, active summary, the card's resident
memory, settings); :func:`apply_story` drops the covered messages' turns, fills 【世界状态】,
【登场名录】, 【前情提要】 and (optionally) 【剧情记忆】, and cuts history to the token budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import msgspec

from ..messages import SUMMARY_PREFIX, Turn, build_messages
from .budget import BudgetCut, fit_history

__all__ = ["StoryView", "budget_cut", "budget_messages", "drop_covered"]

T = TypeVar("T")


class StoryView(msgspec.Struct):
    summary: str = ""
    covers_through: str | None = None
    world_state: str = ""
    roster: str = ""
    resident: str = ""
    context_tokens: int = 32768
    reserve_tokens: int = 4096
    count: Callable[[str], int] = len
    # 【剧情记忆】 for a query ("" = nothing); None when recall is off.
    recall: Callable[[str], str] | None = None
    warnings: list[str] = msgspec.field(default_factory=list)

    @property
    def preface(self) -> str:
        """The 【前情提要】 body: the relay summary, then the card's resident memory."""
        return "\n\n".join(part for part in (self.summary.strip(), self.resident.strip()) if part)


def drop_covered(items: Sequence[T], covers_through: str | None, entry_id: Callable[[T], str | None]) -> list[T]:
    """The items after the summary's last covered entry (all of them when it is not among them)."""
    if covers_through is None:
        return list(items)
    for index, item in enumerate(items):
        if entry_id(item) == covers_through:
            return list(items[index + 1 :])
    return list(items)


def budget_cut(
    view: StoryView,
    system: str,
    history: Sequence[Turn],
    words: str,
    injection: str,
    extra_tokens: int = 0,
) -> BudgetCut:
    """The newest turns of *history* that fit beside what always goes out (system + injection +
    words + preface), counted newest → oldest and only until the budget is full."""
    fixed = 3 + view.count(system) + 3 + view.count(injection) + view.count(words) + extra_tokens
    if view.preface:
        fixed += 3 + view.count(SUMMARY_PREFIX + view.preface)
    available = view.context_tokens - view.reserve_tokens - fixed
    return fit_history(history, max(0, available), view.count)


def budget_messages(
    view: StoryView,
    system: str,
    history: Sequence[Turn],
    words: str,
    injection: str,
    extra_tokens: int = 0,
) -> tuple[list[dict[str, str]], str]:
    """The beat's messages with history cut to fit (system + injection + preface first), and the
    warning when something was cut ("" otherwise)."""
    cut = budget_cut(view, system, history, words, injection, extra_tokens)
    return build_messages(cut.kept, words, injection, summary=view.preface), cut.warning
