"""The stage's token budget: the system prompt and the injection first, then history newest → oldest.

History is kept as one contiguous tail: the first turn that does not fit ends it, so the model never
sees a story with a hole in the middle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from ..messages import Turn

__all__ = ["BudgetCut", "fit_history", "turn_tokens"]

# Per-message overhead of the chat format (role markers), as SillyTavern counts it.
MESSAGE_OVERHEAD = 3


def turn_tokens(count: Callable[[str], int], text: str) -> int:
    return MESSAGE_OVERHEAD + count(text)


class BudgetCut(msgspec.Struct, frozen=True):
    kept: list[Turn]
    dropped: int
    used: int

    @property
    def warning(self) -> str:
        if not self.dropped:
            return ""
        return f"上下文预算不够：最早的 {self.dropped} 条剧情没有发给模型（可以用 pear story compact 压缩）"


def fit_history(turns: Sequence[Turn], available: int, count: Callable[[str], int]) -> BudgetCut:
    """The newest turns whose tokens fit in *available* (contiguous from the end)."""
    used = 0
    start = len(turns)
    for index in range(len(turns) - 1, -1, -1):
        cost = turn_tokens(count, turns[index].text)
        if used + cost > available:
            break
        used += cost
        start = index
    return BudgetCut(list(turns[start:]), start, used)
