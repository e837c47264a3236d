"""A sentence the character said before, said again: a small model's loop across beats.

On the English panel Qwen2.5-0.5B opened 7 of 12 replies with the same 「I'm Wren, twenty-six.」
(its first reply's introduction); in Chinese the same tic is a 「客官说笑了。」 every turn.  Each such
sentence is too short for the echo guard's bounds (:mod:`._echo`, six units and more) and for the
copy block's runs (:mod:`._copy_block`, ten), which catch the long copies.

A sentence repeats when its units (a Chinese character, an English word: :func:`._echo.units`) are
at least :data:`MIN_REPEAT` and all lie in a row in one of the character's earlier messages — the
card's greeting or an earlier reply — or nearly all: a run of them at least :data:`NEAR` of the
sentence (「I'm Wren; I keep it safe here.」 after the greeting's 「I'm Wren; I keep it.」, the same
opening with a word added each time, as the model went round the exact test).  A whole reply
repeats when it is one of them again, however short it is (Qwen2.5-0.5B answered 「I am Rowan.」 six
turns running).  Pure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ._echo import longest_shared, units

__all__ = ["MIN_REPEAT", "NEAR", "SaidBefore"]

# "I'm Wren, twenty-six." is five units, 「客官说笑了。」 five; "Yes." or 「好的。」 is no loop.
MIN_REPEAT = 4
# The share of a sentence a run of an earlier message must cover for the sentence to repeat it.
NEAR = 2 / 3
# Between the earlier messages in the one text searched (in no unit), so no match spans two.
_SEPARATOR = "\x00"


class SaidBefore:
    """The character's earlier messages, to test a new sentence against."""

    def __init__(self, messages: Sequence[str]) -> None:
        self._messages = [units(text) for text in messages if text.strip()]
        self._said = _SEPARATOR.join(self._messages)
        self._whole = set(self._messages)

    def whole(self, reply: str) -> bool:
        """Whether *reply* is one of the earlier messages again, word for word (punctuation aside),
        however short: 「I am Rowan.」 six turns running is a loop too."""
        piece = units(reply)
        return bool(piece) and piece in self._whole

    def repeats(self, sentence: str) -> bool:
        """Whether *sentence* says again (in a row, at least :data:`MIN_REPEAT` units) what one of the
        earlier messages said, all of it or :data:`NEAR` of it."""
        piece = units(sentence)
        if len(piece) < MIN_REPEAT:
            return False
        if piece in self._said:
            return True
        need = max(MIN_REPEAT, math.ceil(len(piece) * NEAR))
        return any(longest_shared(piece, said) >= need for said in self._messages)
