"""Regex keys: SillyTavern's ``parseRegexFromString`` and a JS → Python pattern translation.

A key written ``/pattern/flags`` is a JavaScript regular expression that SillyTavern runs on the
raw scan text.  Python's ``re`` differs where it matters for role-play text: JS ``\\d \\w \\b`` are
ASCII-only (CJK counts as non-word), ``.`` stops at ``\\r``/U+2028/U+2029 too, ``$`` without ``m``
matches only at the very end, unknown escapes such as ``\\z`` mean the letter itself, ``[^]`` is
"any character" and named groups are written ``(?<name>…)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_WORD = "A-Za-z0-9_"
_LINE_END = "\\n\\r\\u2028\\u2029"
# JS ``\s``: WhiteSpace + LineTerminator (Unicode Zs and the listed controls).
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_B = rf"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))"
_NB = rf"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))"
_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_SLASHED = re.compile(r"/([\s\S]+?)/([gimsuy]*)", re.ASCII)
_UNESCAPED_SLASH = re.compile(r"(?:^|[^\\])/")
_ESCAPE_LETTERS = set("dDwWsSbBfnrtvcxuk0")


@dataclass(frozen=True, slots=True)
class KeyRegex:
    """A compiled regex key; ``sticky`` (flag ``y``) means ``test()`` only matches at index 0."""

    pattern: re.Pattern[str]
    sticky: bool

    def test(self, text: str) -> bool:
        if self.sticky:
            return self.pattern.match(text) is not None
        return self.pattern.search(text) is not None


def _translate(source: str, flags: str) -> str:
    multiline = "m" in flags
    dotall = "s" in flags
    unicode = "u" in flags
    out: list[str] = []
    i, n = 0, len(source)
    in_class = False
    while i < n:
        c = source[i]
        if c == "\\":
            if i + 1 >= n:
                raise re.error("\\ at end of pattern")
            e = source[i + 1]
            i += 2
            if e == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif e == "D":
                out.append("\\x00-/:-\\U0010ffff" if in_class else "[^0-9]")
            elif e == "w":
                out.append(_WORD if in_class else f"[{_WORD}]")
            elif e == "W":
                out.append("\\x00-/:-@\\[-^`{-\\U0010ffff" if in_class else f"[^{_WORD}]")
            elif e == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
            elif e == "S":
                if in_class:
                    raise re.error("\\S inside a class is not supported")
                out.append(f"[^{_SPACE}]")
            elif e == "b":
                out.append("\\x08" if in_class else _B)
            elif e == "B" and not in_class:
                out.append(_NB)
            elif e == "c" and i < n and source[i].isascii() and source[i].isalpha():
                out.append(re.escape(chr(ord(source[i]) % 32)))
                i += 1
            elif e == "0" and not (i < n and source[i].isdigit()):
                out.append("\\x00")
            elif e == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", source[i : i + 2]):
                out.append("\\x" + source[i : i + 2])
                i += 2
            elif e == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", source[i : i + 4]):
                out.append("\\u" + source[i : i + 4])
                i += 4
            elif e == "u" and unicode and i < n and source[i] == "{":
                end = source.find("}", i)
                if end < 0:
                    raise re.error("bad \\u{…}")
                out.append(re.escape(chr(int(source[i + 1 : end], 16))))
                i = end + 1
            elif e == "k" and i < n and source[i] == "<" and not in_class:
                end = source.find(">", i)
                if end < 0:
                    raise re.error("bad \\k<name>")
                out.append(f"(?P={source[i + 1 : end]})")
                i = end + 1
            elif e.isdigit() and e != "0" and not in_class:
                j = i
                while j < n and source[j].isdigit():
                    j += 1
                out.append("\\" + source[i - 1 : j])
                i = j
            elif e in "fnrtv":
                out.append("\\" + e)
            elif e.isascii() and e.isalnum():
                if unicode and e not in _ESCAPE_LETTERS:
                    raise re.error(f"invalid escape \\{e}")  # \p{…} and friends: not supported
                out.append(re.escape(e))  # JS identity escape: the letter itself
            else:
                out.append(re.escape(e))
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append(c)
            elif c == "[":
                out.append("\\[")
            else:
                out.append(c)
            i += 1
            continue
        if c == "[":
            if source.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                continue
            if source.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append("[")
            i += 1
            if i < n and source[i] == "^":
                out.append("^")
                i += 1
            if i < n and source[i] == "]":
                # "[^]]" cannot be reached here; "[]]" was handled above, so a leading ']' ends the class.
                pass
            continue
        if c == "(" and source.startswith("(?<", i) and i + 3 < n and source[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        if c == "(" and source.startswith("(?", i) and source[i + 2 : i + 3] not in (":", "=", "!", "<"):
            raise re.error("Python-only group syntax")  # (?P…), (?i), (?#…) are errors in JS
        if c == "+" and i > 0 and source[i - 1] in "*+?}" and (i < 2 or source[i - 2] != "\\"):
            raise re.error("possessive quantifiers are not JavaScript syntax")
        if c == ".":
            out.append("[\\s\\S]" if dotall else f"[^{_LINE_END}]")
        elif c == "^":
            out.append(f"(?:(?<=[{_LINE_END}])|\\A)" if multiline else "\\A")
        elif c == "$":
            out.append(f"(?=[{_LINE_END}]|\\Z)" if multiline else "\\Z")
        elif c == "{":
            m = _QUANTIFIER.match(source, i)
            if m:
                out.append(m.group(0))
                i = m.end()
                continue
            out.append("\\{")
        elif c == "}":
            out.append("\\}")
        else:
            out.append(c)
        i += 1
    if in_class:
        raise re.error("unterminated character class")
    return "".join(out)


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
    py_flags = re.IGNORECASE if "i" in flags else 0
    try:
        return KeyRegex(re.compile(_translate(pattern, flags), py_flags), sticky="y" in flags)
    except (re.error, ValueError, OverflowError):
        return None


def looks_like_regex(key: str) -> bool:
    """True for keys written like a regex (used to warn when one does not compile)."""
    return len(key) > 2 and key.startswith("/") and _SLASHED.fullmatch(key) is not None
