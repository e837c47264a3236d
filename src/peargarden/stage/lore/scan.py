"""The stage's keyword scan (green lore): which entries the recent messages mention (spec §8.3).

Rules: the window is the last ``scan_depth`` (default 4) messages joined with ``\\n`` and lower-cased;
candidates are enabled, non-constant entries with at least one key; a key matches as a plain substring,
except that a key of at most two characters needs a word boundary; a ``selective`` entry with secondary
keys also needs any secondary key; hits are sorted by ``order`` and cut to ``max_hits`` (default 3).

**Short CJK keys — a deliberate choice.**  Liyuan tests short keys with JavaScript's ``\\bkey\\b``,
whose word characters are ASCII only.  No boundary ever exists around a CJK character there, so a
two-character Chinese key such as 怀瑾 never matches: an accident of the regex engine, not a rule.
We check the boundary only at an edge of the key that *is* an ASCII word character (so ``ai`` still
does not fire inside ``rain``) and let every other short key match as a substring, which makes 怀瑾,
客栈 and 渡口 work.  ``short_keys="liyuan"`` reproduces the upstream behaviour exactly.

All keys of a book go into one Aho-Corasick automaton (pyahocorasick), so a scan costs one pass over
the window however many entries there are; build a :class:`KeywordScanner` once per corpus.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Literal

import ahocorasick

from .entries import LoreEntry

__all__ = ["DEFAULT_MAX_HITS", "DEFAULT_SCAN_DEPTH", "KeywordScanner", "ShortKeyRule", "scan_window"]

DEFAULT_SCAN_DEPTH = 4
DEFAULT_MAX_HITS = 3

ShortKeyRule = Literal["edges", "liyuan"]


def _ascii_word(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def scan_window(messages: Sequence[str], depth: int = DEFAULT_SCAN_DEPTH) -> str:
    """The text the scan looks at: the last *depth* messages, joined, lower-cased."""
    if depth <= 0:
        return ""
    return "\n".join(messages[-depth:]).lower()


class KeywordScanner:
    """All green entries of a corpus, ready to scan any window in one pass."""

    def __init__(self, entries: Sequence[LoreEntry], *, short_keys: ShortKeyRule = "edges") -> None:
        self.short_keys: ShortKeyRule = short_keys
        self._entries: list[LoreEntry] = [e for e in entries if e.green]
        self._automaton = ahocorasick.Automaton()
        # key text → id; per key id: the entries it is a primary key of, and its boundary checks.
        key_ids: dict[str, int] = {}
        self._primary: list[list[int]] = []
        self._needs_secondary: list[tuple[int, ...]] = []
        self._edge_checks: list[tuple[bool, bool]] = []
        add_word = self._automaton.add_word

        def key_id(raw: str) -> int:
            key = raw.strip().lower()
            found = key_ids.get(key)
            if found is None:
                found = len(key_ids)
                key_ids[key] = found
                add_word(key, (found, len(key)))
                self._primary.append([])
                self._edge_checks.append(self._edges(key))
            return found

        for index, entry in enumerate(self._entries):
            for key in entry.keys:
                if key.strip():
                    primary = self._primary[key_id(key)]
                    if not primary or primary[-1] != index:
                        primary.append(index)
            if entry.selective and entry.secondary_keys:
                self._needs_secondary.append(tuple(key_id(k) for k in entry.secondary_keys if k.strip()))
            else:
                self._needs_secondary.append(())
        self._ready = bool(key_ids)
        if self._ready:
            self._automaton.make_automaton()

    def _edges(self, key: str) -> tuple[bool, bool]:
        """Whether the start / end of *key* must sit on a word boundary."""
        if len(key) > 2:
            return (False, False)
        if self.short_keys == "liyuan":
            return (True, True)
        return (_ascii_word(key[0]), _ascii_word(key[-1]))

    def _boundary_ok(self, text: str, start: int, end: int, kid: int) -> bool:
        check_start, check_end = self._edge_checks[kid]
        # A key edge that must sit on a boundary: the neighbour outside must differ in "wordness"
        # from the key's own edge character (JavaScript's ASCII \b).
        if check_start:
            before = _ascii_word(text[start - 1]) if start > 0 else False
            if before == _ascii_word(text[start]):
                return False
        if check_end:
            after = _ascii_word(text[end]) if end < len(text) else False
            if after == _ascii_word(text[end - 1]):
                return False
        return True

    @property
    def candidates(self) -> list[LoreEntry]:
        return list(self._entries)

    def matched_keys(self, window: str) -> set[int]:
        """Ids of the keys found in *window* (already lower-cased)."""
        found: set[int] = set()
        if not self._ready or not window:
            return found
        plain = self._edge_checks
        for end_index, (kid, length) in self._automaton.iter(window):
            if kid in found:
                continue
            if plain[kid] == (False, False) or self._boundary_ok(window, end_index - length + 1, end_index + 1, kid):
                found.add(kid)
        return found

    def scan(
        self, messages: Sequence[str], *, depth: int = DEFAULT_SCAN_DEPTH, max_hits: int = DEFAULT_MAX_HITS
    ) -> list[LoreEntry]:
        """Entries the last *depth* messages mention, sorted by ``order``, at most *max_hits*."""
        if max_hits <= 0:
            return []
        found = self.matched_keys(scan_window(messages, depth))
        hit_indexes: set[int] = set()
        for kid in found:
            hit_indexes.update(self._primary[kid])
        needs = self._needs_secondary
        hits = [i for i in hit_indexes if not needs[i] or any(k in found for k in needs[i])]
        # Lowest order first, book order among equals; only the first few are wanted.
        entries = self._entries
        hits = heapq.nsmallest(max_hits, hits, key=lambda index: (entries[index].order, index))
        return [entries[index] for index in hits]
