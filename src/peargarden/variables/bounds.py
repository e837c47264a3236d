"""How large and how deep a variables value may be: the limits every way in checks.

MVU sets none; a reply, a seed or a file could then make one message's record tens of megabytes (a
YAML alias bomb expands without end: ``yaml_load`` refuses those first) or nest so deep that reading
it back ends in ``RecursionError``.  Here a value past either limit is refused with one line and the
variables stay as they were (``docs/variables.md``, *Sizes*):

- :data:`MAX_DEPTH` levels of nesting (a scalar is 0 levels, ``{"a": 1}`` one, ``{"a": [1]}`` two);
- :data:`MAX_CHARS` characters of JSON for a message's ``stat_data`` (and so for any one value in it),
  counted as ``JSON.stringify`` writes them, escapes left out;
- a whole record (``stat_data`` with its generated ``schema``, ``display_data`` and ``delta_data``)
  within :data:`RECORD_DEPTH` levels and :data:`RECORD_CHARS` characters: what such a ``stat_data``
  makes (the schema nests two levels for each of its own).

Both walks go without recursion and stop at the limit, so a value shared many times over (what an
alias makes) costs no more than the limit to judge.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from peargarden.variables.jsvalues import UNDEFINED

MAX_DEPTH = 100
MAX_CHARS = 1_000_000
RECORD_DEPTH = 2 * MAX_DEPTH + 4
RECORD_CHARS = 4 * MAX_CHARS


class TooLarge(ValueError):
    """A value past :data:`MAX_DEPTH` or :data:`MAX_CHARS`; the message says which, in a few words."""


def depth_message(limit: int = MAX_DEPTH) -> str:
    return f"嵌套超过 {limit} 层（nested deeper than {limit} levels）"


def size_message(limit: int = MAX_CHARS) -> str:
    return f"超过 {limit:,} 个字符（over {limit:,} characters of JSON）"


def bracket_depths(text: str) -> Iterator[tuple[int, int]]:
    """``(position, depth after it)`` for each ``[``/``{``/``]``/``}`` of *text* outside quotes (in a
    double-quoted string a backslash escapes the next character); the depth never goes below 0."""
    depth = 0
    quote = ""
    escaped = False
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            yield position, depth
        elif char in "]}":
            depth = max(0, depth - 1)
            yield position, depth


def text_nesting_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether *text*'s brackets (outside quotes) ever stand more than *limit* deep: what a parser
    would recurse through, found in one pass before any parser runs."""
    if text.count("[") + text.count("{") <= limit:
        return False
    return any(depth > limit for _, depth in bracket_depths(text))


def _scalar_chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value) + 2
    if value is None or value is UNDEFINED:
        return 4
    if isinstance(value, bool):
        return 5
    return len(repr(value))


def check_value(value: Any, *, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH) -> None:
    """``TooLarge`` when *value* nests deeper than *max_depth* or its JSON would pass *max_chars*."""
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            chars += _scalar_chars(item)
            if chars > max_chars:
                raise TooLarge(size_message(max_chars))
            continue
        if depth >= max_depth:
            raise TooLarge(depth_message(max_depth))
        # The brackets and separators first, so a huge container is judged before its items are listed.
        chars += 2 + len(item) + (sum(len(key) + 3 for key in item) if isinstance(item, dict) else 0)
        if chars > max_chars:
            raise TooLarge(size_message(max_chars))
        stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))


def problem(value: Any, *, record: bool = False) -> str | None:
    """What is wrong with *value*'s size (the :class:`TooLarge` message), or ``None``; *record*:
    judged as a whole record, by the record's limits."""
    try:
        if record:
            check_value(value, max_chars=RECORD_CHARS, max_depth=RECORD_DEPTH)
        else:
            check_value(value)
    except TooLarge as error:
        return str(error)
    return None
