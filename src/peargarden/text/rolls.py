"""Live random rolls: JavaScript's ``Math.random()`` for assembly that is not a replay.

The pure core never draws randomness itself: a ``random`` callable is passed in.  Live fronts (chat,
``pear tavern assemble``, the web app, the stage) pass :func:`live_random`; replays and tests pass
their own rolls.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable

__all__ = ["live_random"]


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
