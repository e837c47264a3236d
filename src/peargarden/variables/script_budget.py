"""The CPU a card's schema scripts may spend: a budget per use and per beat (``zod_schema``).

QuickJS's time limit counts from the start of each call into the engine, and a script's jobs are one
call each: a script that keeps the job queue busy (an ``await`` after every second of work) ran for
as long as it liked, once per use, and a beat uses the schema about eight times.  So every call is
given only what is left of two budgets — :data:`USE_SECONDS` for one use (every script, every job and
MVU's step together) and :data:`BEAT_SECONDS` for all the uses of one beat — and what it spent is
counted on the clock passed in (the CPU time of the thread that runs the engine).  A budget that
runs out stops the script running then, and says which and why.

Pure: the clock is the caller's (``time.thread_time`` in the app; a test may pass its own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

USE_SECONDS = 2.0
BEAT_SECONDS = 4.0

_Result = TypeVar("_Result")


class OutOfTime(Exception):
    """A call into the engine found no time left, or was stopped when it ran out; the message says
    which budget it was."""


class ScriptBudget:
    """What a card's scripts may still spend in the beat running now (one per beat and card: the
    modes renew it when a beat starts; a command such as ``pear vars apply`` makes its own)."""

    def __init__(
        self, clock: Callable[[], float], *, per_use: float | None = None, per_beat: float | None = None
    ) -> None:
        self.clock = clock
        # Read when the budget is made, not when this module was loaded (a test sets smaller ones).
        self.per_use = USE_SECONDS if per_use is None else per_use
        self.per_beat = BEAT_SECONDS if per_beat is None else per_beat
        self.spent = 0.0

    def start_beat(self) -> None:
        self.spent = 0.0

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.per_beat

    def beat_used_up(self) -> str:
        return f"这一拍的 {self.per_beat:g} 秒 CPU 已用完"

    def use(self) -> ScriptUse:
        return ScriptUse(self)


class ScriptUse:
    """One use of the schema: every call into the engine through :meth:`call`."""

    def __init__(self, budget: ScriptBudget) -> None:
        self.budget = budget
        self.used = 0.0

    def left(self) -> float:
        budget = self.budget
        return min(budget.per_use - self.used, budget.per_beat - budget.spent)

    def why(self) -> str:
        """Which budget is the one that ran out."""
        budget = self.budget
        if budget.per_beat - budget.spent <= budget.per_use - self.used:
            return budget.beat_used_up()
        return f"这一次最多 {budget.per_use:g} 秒 CPU"

    def call(self, set_limit: Callable[[float], None], run: Callable[[], _Result]) -> _Result:
        """*run* with the engine's limit set to what is left (*set_limit*), its CPU counted;
        :class:`OutOfTime` when nothing is left to give it.  (A call the engine interrupts raises
        the engine's own error: the caller knows its words.)"""
        left = self.left()
        if left <= 0:
            raise OutOfTime(self.why())
        set_limit(left)
        clock = self.budget.clock
        start = clock()
        try:
            return run()
        finally:
            spent = max(0.0, clock() - start)
            self.used += spent
            self.budget.spent += spent
