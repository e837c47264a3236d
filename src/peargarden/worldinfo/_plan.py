"""What the scan needs from an entry, read once with JavaScript semantics and cached on the entry."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from . import _js
from ._buffer import is_multi_word, js_trim, whole_word_pattern
from ._decorators import parse_decorators
from ._jsregex import looks_like_regex, parse_key_regex
from .types import WorldInfoEntry

# A matcher gets (raw text, lower-cased text) and says whether the key is there.
Matcher = Callable[[str, str], bool]


def strict_int(value: Any) -> int | None:
    """The integer a JS number holds (for ``===`` comparisons with small constants), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (math.isnan(value) or value != int(value)):
        return None
    return int(value)


@lru_cache(maxsize=65536)
def matcher(key: str, case_sensitive: bool, whole_words: bool) -> tuple[Matcher, bool]:
    """``matchKeys`` for one (already macro-expanded and trimmed) key → (matcher, invalid_regex)."""
    regex = parse_key_regex(key) if key.startswith("/") else None
    if regex is not None:
        return (lambda text, _lower: regex.test(text)), False
    invalid = key.startswith("/") and looks_like_regex(key)
    needle = key if case_sensitive else key.lower()
    if not whole_words or is_multi_word(needle):
        if case_sensitive:
            return (lambda text, _lower: needle in text), invalid
        return (lambda _text, lower: needle in lower), invalid
    pattern = whole_word_pattern(needle)
    if case_sensitive:
        return (lambda text, _lower: needle in text and pattern.search(text) is not None), invalid
    return (lambda _text, lower: needle in lower and pattern.search(lower) is not None), invalid


def _invalid_regex(key: str) -> bool:
    trimmed = js_trim(key)
    return trimmed.startswith("/") and looks_like_regex(trimmed) and parse_key_regex(trimmed) is None


def _needs_macro(key: str) -> bool:
    # Every 1.12.6 macro is written {{…}} or <USER>/<BOT>/<CHAR>/<GROUP>/<CHARIFNOTGROUP>.
    return "{" in key or "<" in key


_RANDOM_MACROS = ("{{random", "{{pick", "{{roll")


def macro_is_stable(key: str) -> bool:
    """False for keys whose macros draw random numbers: those are expanded at every use, as in ST."""
    lowered = key.lower()
    return not any(m in lowered for m in _RANDOM_MACROS)


class EntryPlan:
    """Fields of one entry as the scan loop reads them."""

    __slots__ = (
        "_flags",
        "_tests",
        "case_raw",
        "character_filter",
        "constant",
        "content",
        "decorators",
        "delay_recursion",
        "disabled",
        "exclude_recursion",
        "invalid_keys",
        "keys",
        "logic",
        "scan_depth",
        "secondary",
        "whole_raw",
    )

    def __init__(self, entry: WorldInfoEntry) -> None:
        raw = entry.raw
        get = raw.get
        undefined = _js.UNDEFINED
        self.disabled = _js.loose_equals_true(get("disable", undefined))
        flt = get("characterFilter")
        self.character_filter = flt if _js.truthy(flt) and isinstance(flt, dict) else None
        delay_rec = get("delayUntilRecursion", undefined)
        self.delay_recursion: float = (
            (1.0 if delay_rec is True else _js.to_number(delay_rec)) if _js.truthy(delay_rec) else 0.0
        )
        self.exclude_recursion = _js.truthy(get("excludeRecursion", undefined))
        content = get("content", undefined)
        text = _js.to_string(content) if _js.truthy(content) else ""
        self.decorators, self.content = parse_decorators(text)
        self.constant = _js.truthy(get("constant", undefined))
        keys = get("key", undefined)
        # (key text, needs macro) pairs; None when the entry has no usable key list.
        self.keys: tuple[tuple[str, bool], ...] | None = None
        if isinstance(keys, list) and keys:
            self.keys = tuple((k, _needs_macro(k)) for k in map(_js.to_string, keys))
        secondary = get("keysecondary", undefined)
        self.secondary: tuple[tuple[str, bool], ...] | None = (
            tuple((k, _needs_macro(k)) for k in map(_js.to_string, secondary))
            if _js.truthy(get("selective", undefined)) and isinstance(secondary, list) and secondary
            else None
        )
        self.logic = strict_int(_js.coalesce(get("selectiveLogic", undefined), 0))
        self.case_raw = get("caseSensitive", undefined)
        self.whole_raw = get("matchWholeWords", undefined)
        self.scan_depth = get("scanDepth", undefined)
        self.invalid_keys = tuple(
            k for k, m in (self.keys or ()) + (self.secondary or ()) if not m and _invalid_regex(k)
        )
        self._flags: dict[tuple[bool, bool], tuple[bool, bool]] = {}
        self._tests: dict[tuple[bool, bool], tuple[Matcher | None, ...]] = {}

    def flags(self, case_default: bool, whole_default: bool) -> tuple[bool, bool]:
        """(case sensitive, whole words) for this entry under the given global settings."""
        cached = self._flags.get((case_default, whole_default))
        if cached is None:
            cached = (
                _js.truthy(_js.coalesce(self.case_raw, case_default)),
                _js.truthy(_js.coalesce(self.whole_raw, whole_default)),
            )
            self._flags[(case_default, whole_default)] = cached
        return cached

    def primary_tests(self, flags: tuple[bool, bool]) -> tuple[Matcher | None, ...]:
        """A ready matcher per primary key; None where the key has macros (expanded per scan)."""
        cached = self._tests.get(flags)
        if cached is None:
            cached = tuple(
                None if needs_macro else matcher(js_trim(key), *flags)[0] for key, needs_macro in self.keys or ()
            )
            self._tests[flags] = cached
        return cached


def plan_for(entry: WorldInfoEntry) -> EntryPlan:
    plan: EntryPlan | None = entry.cache.get("plan")
    if plan is None:
        plan = EntryPlan(entry)
        entry.cache["plan"] = plan
    return plan

