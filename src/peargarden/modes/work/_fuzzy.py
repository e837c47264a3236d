"""Whitespace- and quote-tolerant matching for the ``edit`` tool.

Unlike pi (which rewrites the whole file in normalised form after a fuzzy match), we keep a map from
the normalised text back to the original and replace only the matched span: NFKC would otherwise
turn every full-width Chinese comma and quote in the file into ASCII.
"""

from __future__ import annotations

import unicodedata

_QUOTES = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2032": "'",
    "\u2033": '"',
}
_DASHES = set("\u2010\u2011\u2012\u2013\u2014\u2015\u2212")
_SPACES = set("\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000")


def _fold(ch: str) -> str:
    if ch in _QUOTES:
        return _QUOTES[ch]
    if ch in _DASHES:
        return "-"
    if ch in _SPACES:
        return " "
    return unicodedata.normalize("NFKC", ch)


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index of the original character."""
    chars: list[str] = []
    origin: list[int] = []
    for index, ch in enumerate(text):
        for out in _fold(ch):
            chars.append(out)
            origin.append(index)
    # Strip trailing whitespace of every line (and of the text).
    kept_chars: list[str] = []
    kept_origin: list[int] = []
    pending: list[tuple[str, int]] = []
    for ch, index in zip(chars, origin, strict=True):
        if ch in (" ", "\t"):
            pending.append((ch, index))
            continue
        if ch != "\n":
            for p_ch, p_index in pending:
                kept_chars.append(p_ch)
                kept_origin.append(p_index)
        pending = []
        kept_chars.append(ch)
        kept_origin.append(index)
    return "".join(kept_chars), kept_origin


def normalize(text: str) -> str:
    return normalize_with_map(text)[0]


def fuzzy_spans(content: str, needle: str) -> list[tuple[int, int]]:
    """Spans of *content* (original indices) whose normalised form equals the normalised *needle*."""
    norm, origin = normalize_with_map(content)
    target = normalize(needle)
    if not target:
        return []
    spans: list[tuple[int, int]] = []
    start = norm.find(target)
    while start != -1:
        end = start + len(target)
        original_start = origin[start]
        original_end = origin[end] if end < len(norm) else len(content)
        if end < len(norm) and origin[end] == origin[end - 1]:
            original_end = origin[end - 1] + 1
        spans.append((original_start, original_end))
        start = norm.find(target, start + 1)
    return spans
