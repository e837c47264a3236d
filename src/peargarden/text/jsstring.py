"""JavaScript string trimming: SillyTavern trims card fields, example blocks and prompts with
``String.prototype.trim``, whose whitespace set differs from Python's ``str.strip`` (JS trims
U+FEFF, a byte-order mark; Python also trims the separators U+001C–U+001F, which JS keeps)."""

from __future__ import annotations

import re

# The JS WhiteSpace + LineTerminator set.
JS_SPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + ("\u2028\u2029\u202f\u205f\u3000\ufeff")
)
JS_SPACE_RUN = re.compile(f"[{re.escape(JS_SPACE)}]+")
_JS_SPACE_SET = frozenset(JS_SPACE)


def js_length(text: str) -> int:
    """``String.prototype.length``: UTF-16 code units (a character outside the BMP counts two)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    if not text or (text[0] not in _JS_SPACE_SET and text[-1] not in _JS_SPACE_SET):
        return text
    return text.strip(JS_SPACE)


def js_trim_start(text: str) -> str:
    """``String.prototype.trimStart``."""
    return text.lstrip(JS_SPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``."""
    return text.rstrip(JS_SPACE)
