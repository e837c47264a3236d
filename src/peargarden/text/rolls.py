"""Live random rolls: JavaScript's ``Math.random()`` for assembly that is not a replay.

The pure core never draws randomness itself: a ``random`` callable is passed in.  Live fronts (chat,
``pear tavern assemble``, the web app, the stage) pass :func:`live_random`; replays and tests pass
their own rolls.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable

__all__ = ["live_random", "mulberry32"]


def live_random(seed: int | None = None) -> Callable[[], float]:
    """Uniform rolls in the open interval (0, 1), seedable.

    World-info probability (SillyTavern: ``Math.random() * 100 <= probability``), inclusion-group
    picks and ``{{random}}`` draw from it.  ``Math.random()`` never reaches 1; an exact 0.0 is drawn
    again, so no roll lets probability 0 through.
    """
    source = _random.Random(seed)

    def roll() -> float:
        value = source.random()
        while value == 0.0:
            value = source.random()
        return value

    return roll


_M32 = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return ((a & _M32) * (b & _M32)) & _M32


def mulberry32(seed: int, *, skip: int = 0) -> Callable[[], float]:
    """A seeded ``Math.random()``: the mulberry32 generator (what the oracle recordings install),
    with the first ``skip`` draws already taken (the draws the page made before a step)."""
    state = seed & _M32

    def roll() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & _M32
        t = _imul(state ^ (state >> 15), state | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & _M32
        return ((t ^ (t >> 14)) & _M32) / 4294967296

    for _ in range(max(0, skip)):
        roll()
    return roll
