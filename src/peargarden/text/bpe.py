"""Byte-pair encoding in Python over a tiktoken rank table: tiktoken's counts for a process that counts little.

Building tiktoken's own encoder (its Rust tables over 100,000 ranks, after importing it) costs about
0.1 s of CPU, more than a short ``pear`` process spends counting: ``pear tavern assemble`` on a
1,000-message chat with a 1,000-entry lorebook counts ~70 texts, ~5,000 characters (2 ms for
tiktoken, ~15 ms here).  The algorithm is byte-level BPE as tiktoken documents it: split the text with
the encoding's pattern; a piece that is a token is one; otherwise start from its bytes and merge the
adjacent pair of lowest rank (the leftmost of equals) until no adjacent pair is a token.

The split needs ``\\p{L}`` and ``\\p{N}``, which Python's ``re`` lacks, and the Unicode versions of
the ``regex`` module and tiktoken's Rust regex differ (some 17,000 recently assigned code points are
letters to one and not to the other).  So a text is encoded here only when all its characters lie in
:data:`CHECKED_RANGES` — every code point of which a test encodes both ways — and each of its pieces
is at most :data:`MAX_PIECE_BYTES` long (the merge loop is quadratic in a piece); otherwise
:meth:`RankBpe.count` returns ``None`` and the caller asks tiktoken.  Within those ranges the pattern's
classes are written out for ``re`` (:func:`re_pattern`, from the runs of :mod:`._bpe_classes`), so a
count does not import ``regex``.
"""

from __future__ import annotations

import bisect
import itertools
import re
import sys

from ._bpe_classes import CLASS_RUNS

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


Runs = list[tuple[int, int]]  # sorted, apart, first and last code point of each

_SPACE = "\\s"
_ESCAPES = {"\\r": "\r", "\\n": "\n", "\\t": "\t"}


def _runs(flat: tuple[int, ...]) -> Runs:
    return list(zip(flat[::2], flat[1::2], strict=True))


def _union(*parts: Runs) -> Runs:
    out: Runs = []
    for low, high in sorted(run for part in parts for run in part):
        if out and low <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(high, out[-1][1]))
        else:
            out.append((low, high))
    return out


def _minus(runs: Runs, taken: Runs) -> Runs:
    out: Runs = []
    for low, high in runs:
        for cut_low, cut_high in taken:
            if cut_high < low or cut_low > high:
                continue
            if cut_low > low:
                out.append((low, cut_low - 1))
            low = cut_high + 1
            if low > high:
                break
        if low <= high:
            out.append((low, high))
    return out


def _size(runs: Runs) -> int:
    return sum(high - low + 1 for low, high in runs)


def _class(members: Runs, negated: bool) -> str:
    """An ``re`` class that matches, among the checked ranges' characters, *members* (or all but
    them).  ``re`` fills a table entry per code point of a class as it compiles it (the letters are
    40,000 of them, ~25 M instructions a pattern): the smaller side is written, as ``[^…]`` when it is
    the rest of the ranges — the same class for every text this module splits."""
    wanted = _minus(list(CHECKED_RANGES), members) if negated else members
    rest = _minus(list(CHECKED_RANGES), wanted)
    shown, head = (rest, "[^") if _size(rest) < _size(wanted) else (wanted, "[")
    body = "".join(re.escape(chr(low)) + (f"-{re.escape(chr(high))}" if high > low else "") for low, high in shown)
    return f"{head}{body}]"


def _token(pattern: str, at: int) -> str:
    """The escape at *at*: ``\\p{…}`` or a backslash and one character."""
    return pattern[at : pattern.index("}", at) + 1] if pattern.startswith("\\p{", at) else pattern[at : at + 2]


def _members(item: str) -> Runs:
    if item in CLASS_RUNS:
        return _runs(CLASS_RUNS[item])
    if item.startswith("\\p"):
        raise ValueError(f"{item} is not among the written-out classes")
    char = _ESCAPES.get(item, item)
    if len(char) != 1:
        raise ValueError(f"{item} in a class of properties")
    return [(ord(char), ord(char))]


def re_pattern(pattern: str) -> str:
    """A tiktoken split *pattern* for Python's ``re``, the same split for every text of
    :data:`CHECKED_RANGES`: each ``\\p{…}``, ``\\s``, ``\\S`` and each bracket class holding one
    written out as its code points there (:func:`_class`); the rest as it is."""
    out: list[str] = []
    at = 0
    while at < len(pattern):
        if pattern[at] == "\\":
            token = _token(pattern, at)
            at += len(token)
            if token in CLASS_RUNS or token == "\\S":
                out.append(_class(_runs(CLASS_RUNS[_SPACE if token == "\\S" else token]), token == "\\S"))
            else:
                _members(token)  # \r, \n mean the same in `re`; an unknown \p{…} is refused
                out.append(token)
            continue
        if pattern[at] != "[":
            out.append(pattern[at])
            at += 1
            continue
        end = at + 1
        items: list[str] = []
        negated = pattern.startswith("[^", at)
        end += negated
        while pattern[end] != "]":
            item = _token(pattern, end) if pattern[end] == "\\" else pattern[end]
            items.append(item)
            end += len(item)
        if any(item in CLASS_RUNS for item in items):
            out.append(_class(_union(*map(_members, items)), negated))
        else:
            out.append(pattern[at : end + 1])
        at = end + 1
    return "".join(out)


class RankBpe:
    """Counts (and tokens) of one encoding from its rank table and split pattern."""

    def __init__(self, ranks: dict[bytes, int], pattern: str) -> None:
        self._ranks = ranks
        self._split = re.compile(re_pattern(pattern)).findall

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
