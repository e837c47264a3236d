"""Byte-pair encoding in Python over a tiktoken rank table: tiktoken's counts for a process that counts little.

Building tiktoken's own encoder (its Rust tables over 100,000 ranks, after importing it) costs about
0.1 s of CPU, more than a short ``pear`` process spends counting: ``pear tavern assemble`` on a
1,000-message chat with a 1,000-entry lorebook counts ~70 texts, ~5,000 characters (2 ms for
tiktoken, ~15 ms here).  The algorithm is byte-level BPE as tiktoken documents it: split the text with
the encoding's pattern; a piece that is a token is one; otherwise start from its bytes and merge the
adjacent pair of lowest rank (the leftmost of equals) until no adjacent pair is a token.

The split needs ``\\p{L}`` and ``\\p{N}``, which Python's ``re`` lacks: the ``regex`` module gives them,
but it and tiktoken's Rust regex follow different Unicode versions (some 17,000 recently assigned code
points are letters to one and not to the other).  So a text is encoded here only when all its
characters lie in :data:`CHECKED_RANGES` — every code point of which a test encodes both ways — and
each of its pieces is at most :data:`MAX_PIECE_BYTES` long (the merge loop is quadratic in a piece);
otherwise :meth:`RankBpe.count` returns ``None`` and the caller asks tiktoken.
"""

from __future__ import annotations

import bisect
import itertools
import sys

# Latin, Greek and Cyrillic; general punctuation, super- and subscripts, currency and letter-like
# symbols, arrows, technical symbols, box drawing, geometric and miscellaneous symbols, dingbats; CJK
# punctuation, kana, CJK extension A and the unified ideographs, Hangul syllables; the variation
# selectors (an emoji's U+FE0F) and full-width forms; the common emoji blocks.  Left out inside
# them: U+208F and U+209D-209F, subscript letters newer than tiktoken's Unicode tables (letters to
# `regex`, not to tiktoken).
CHECKED_RANGES = (
    (0x0000, 0x052F),
    (0x2000, 0x208E),
    (0x2090, 0x209C),
    (0x20A0, 0x27BF),
    (0x3000, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xFE00, 0xFE0F),
    (0xFF00, 0xFFEF),
    (0x1F300, 0x1F64F),
    (0x1F680, 0x1F6FF),
    (0x1F900, 0x1F9FF),
)

MAX_PIECE_BYTES = 256
_NO_RANK = sys.maxsize


# The ranges as sorted bounds, each range's first code point and the one after its last: a code point
# lies in a range when it falls after an odd number of bounds.  (A regular expression over these
# ranges took ~6.5 ms to compile, more than checking every text a short process counts.)
_BOUNDS = [bound for low, high in CHECKED_RANGES for bound in (low, high + 1)]


def checked(text: str) -> bool:
    """Whether every character of *text* lies in :data:`CHECKED_RANGES`."""
    if text.isascii():
        return True
    return all(bisect.bisect_right(_BOUNDS, ord(char)) % 2 == 1 for char in set(text))


class RankBpe:
    """Counts (and tokens) of one encoding from its rank table and split pattern."""

    def __init__(self, ranks: dict[bytes, int], pattern: str) -> None:
        import regex  # the `regex` module: \\p{L}; loaded with the first exact count

        self._ranks = ranks
        self._split = regex.compile(pattern).findall

    def count(self, text: str) -> int | None:
        """The number of tokens of *text*; ``None`` when it is not ours to count (see the module)."""
        if not checked(text):
            return None
        total = 0
        for piece in self._split(text):
            data = piece.encode("utf-8")
            if data in self._ranks:
                total += 1
            elif len(data) > MAX_PIECE_BYTES:
                return None
            else:
                total += len(self._merged(data)) - 1
        return total

    def encode(self, text: str) -> list[int] | None:
        """The tokens of *text* (for the tests that hold this to tiktoken); ``None`` as for :meth:`count`."""
        if not checked(text):
            return None
        tokens: list[int] = []
        for piece in self._split(text):
            data = piece.encode("utf-8")
            whole = self._ranks.get(data)
            if whole is not None:
                tokens.append(whole)
                continue
            if len(data) > MAX_PIECE_BYTES:
                return None
            bounds = self._merged(data)
            tokens.extend(self._ranks[data[start:end]] for start, end in itertools.pairwise(bounds))
        return tokens

    def _merged(self, data: bytes) -> list[int]:
        """The token boundaries of one piece: byte offsets, first 0 and last ``len(data)``."""
        rank = self._ranks.get
        bounds = list(range(len(data) + 1))
        # pairs[i]: the rank of the token that joining tokens i and i + 1 would make
        pairs = [rank(data[i : i + 2], _NO_RANK) for i in range(len(data) - 1)]
        while pairs:
            best = min(pairs)
            if best == _NO_RANK:
                break
            at = pairs.index(best)
            del bounds[at + 1]
            del pairs[at]
            if at < len(pairs):
                pairs[at] = rank(data[bounds[at] : bounds[at + 2]], _NO_RANK)
            if at > 0:
                pairs[at - 1] = rank(data[bounds[at - 1] : bounds[at + 1]], _NO_RANK)
        return bounds
