"""What the scan needs from an entry, read once with JavaScript semantics and cached on the entry."""

from __future__ import annotations

import math
from typing import Any

from peargarden.text.jsstring import js_trim

from . import _js
from ._buffer import is_multi_word, whole_word_pattern
from ._decorators import parse_decorators
from ._jsregex import KeyRegex, looks_like_regex, parse_key_regex
from .types import WorldInfoEntry


def strict_int(value: Any) -> int | None:
    """The integer a JS number holds (for ``===`` comparisons with small constants), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        return None
    return int(value)


# A key test is (kind, needle, regex): cheap to build, evaluated by ``run_test``.
SUBSTRING, SUBSTRING_LOWER, WHOLE, WHOLE_LOWER, REGEX, NEVER = 0, 1, 2, 3, 4, 5
_NEVER: KeyTest = (NEVER, "", None)  # an empty key is skipped by ST's ``substituted && …`` guard
KeyTest = tuple[int, str, "KeyRegex | None"]


def key_test(key: str, case_sensitive: bool, whole_words: bool) -> KeyTest:
    """``matchKeys`` for one (already macro-expanded and trimmed) key."""
    if key.startswith("/"):
        regex = parse_key_regex(key)
        if regex is not None:
            return (REGEX, key, regex)
    needle = key if case_sensitive else key.lower()
    if not whole_words or is_multi_word(needle):
        return (SUBSTRING if case_sensitive else SUBSTRING_LOWER, needle, None)
    return (WHOLE if case_sensitive else WHOLE_LOWER, needle, None)


def run_test(test: KeyTest, text: str, lower: str) -> bool:
    kind, needle, regex = test
    if kind == SUBSTRING_LOWER:
        return needle in lower
    if kind == WHOLE_LOWER:
        return needle in lower and whole_word_pattern(needle).search(lower) is not None
    if kind == SUBSTRING:
        return needle in text
    if kind == WHOLE:
        return needle in text and whole_word_pattern(needle).search(text) is not None
    return kind == REGEX and regex is not None and regex.test(text)


def _invalid_regex(key: str) -> bool:
    if "/" not in key:
        return False
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


# 1.18 entry flags that add a text outside the chat to the entry's scan text, in ST's order.
MATCH_SOURCES = (
    "matchPersonaDescription",
    "matchCharacterDescription",
    "matchCharacterPersonality",
    "matchCharacterDepthPrompt",
    "matchScenario",
    "matchCreatorNotes",
)


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
        "ignore_budget",
        "invalid_keys",
        "keys",
        "logic",
        "match_sources",
        "scan_depth",
        "secondary",
        "triggers",
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
        scan_depth = get("scanDepth", undefined)
        self.scan_depth = None if _js.is_nullish(scan_depth) else scan_depth
        self.invalid_keys = tuple(
            k for k, m in (self.keys or ()) + (self.secondary or ()) if not m and _invalid_regex(k)
        )
        # 1.18 options (read only when the scan is asked for them).
        self.match_sources = tuple(flag for flag in MATCH_SOURCES if _js.truthy(get(flag, undefined)))
        triggers = get("triggers", undefined)
        self.triggers: tuple[Any, ...] = tuple(triggers) if isinstance(triggers, list) else ()
        self.ignore_budget = _js.truthy(get("ignoreBudget", undefined))
        self._flags: dict[tuple[bool, bool], tuple[bool, bool]] = {}
        self._tests: dict[tuple[bool, bool], tuple[KeyTest | None, ...]] = {}

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

    def primary_tests(self, flags: tuple[bool, bool]) -> tuple[KeyTest | None, ...]:
        """A ready test per primary key; None where the key has macros (expanded per scan)."""
        cached = self._tests.get(flags)
        if cached is None:
            case, whole = flags
            cached = tuple(
                None if needs_macro else (key_test(js_trim(key), case, whole) if key else _NEVER)
                for key, needs_macro in self.keys or ()
            )
            self._tests[flags] = cached
        return cached


def plan_for(entry: WorldInfoEntry) -> EntryPlan:
    plan: EntryPlan | None = entry.cache.get("plan")
    if plan is None:
        plan = EntryPlan(entry)
        entry.cache["plan"] = plan
    return plan
