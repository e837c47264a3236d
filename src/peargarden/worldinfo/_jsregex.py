"""Regex keys: SillyTavern's ``parseRegexFromString``.

A key written ``/pattern/flags`` is a JavaScript regular expression that SillyTavern runs on the raw
scan text; the JS → Python translation is :mod:`peargarden.text._jstranslate` (shared with regex
scripts).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

import msgspec

from peargarden.text._jstranslate import translate_js

_SLASHED = re.compile(r"/([\s\S]+?)/([gimsuy]*)", re.ASCII)
_UNESCAPED_SLASH = re.compile(r"(?:^|[^\\])/")


class _Compiled(Protocol):
    def search(self, text: str) -> object | None: ...

    def match(self, text: str) -> object | None: ...


class KeyRegex(msgspec.Struct, frozen=True):
    """A compiled regex key; ``sticky`` (flag ``y``) means ``test()`` only matches at index 0."""

    pattern: _Compiled
    sticky: bool

    def test(self, text: str) -> bool:
        if self.sticky:
            return self.pattern.match(text) is not None
        return self.pattern.search(text) is not None


@lru_cache(maxsize=4096)
def parse_key_regex(key: str) -> KeyRegex | None:
    """``/pattern/flags`` → a compiled key, or ``None`` when SillyTavern would treat it as text."""
    m = _SLASHED.fullmatch(key)
    if not m:
        return None
    pattern, flags = m.group(1), m.group(2)
    if _UNESCAPED_SLASH.search(pattern):
        return None
    if len(set(flags)) != len(flags):
        return None  # JS rejects repeated flags
    pattern = pattern.replace("\\/", "/", 1)  # ST unescapes only the first "\/" (the rest stay escapes)
    # regex, not re: variable-length lookbehind and forward references, as JavaScript allows
    import regex  # heavy (19 modules): loaded by the first regex a card really has

    py_flags = regex.IGNORECASE if "i" in flags else 0
    try:
        compiled: _Compiled = regex.compile(translate_js(pattern, flags), py_flags | regex.VERSION0)
    except (re.error, regex.error, ValueError, OverflowError, RecursionError):
        return None
    return KeyRegex(compiled, sticky="y" in flags)


def looks_like_regex(key: str) -> bool:
    """True for keys written like a regex (used to warn when one does not compile)."""
    return len(key) > 2 and key.startswith("/") and _SLASHED.fullmatch(key) is not None
