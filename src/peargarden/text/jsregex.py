"""JavaScript regular expressions in Python: ``/pattern/flags`` parsing and syntax translation.

SillyTavern runs user-written JS regexes (regex scripts, World Info regex keys).  Python's ``re``
differs in a few places that change results: ``\\d``/``\\w``/``\\b`` are ASCII-only in JS (so CJK
characters are "non-word"), ``$`` without the ``m`` flag only matches at the very end, ``[^]``
means any character, named groups are written ``(?<name>…)``.  :func:`translate` rewrites those
constructs; everything else is passed through.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_WORD = "A-Za-z0-9_"
_B = rf"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))"
_NB = rf"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))"
_VALID_FLAGS = set("dgimsuvy")


@dataclass(frozen=True)
class JsRegex:
    """A compiled JS regex: the Python pattern plus the JS flags that change how it is used."""

    pattern: re.Pattern[str]
    global_: bool
    source: str
    flags: str

    def replace(self, text: str, repl: object) -> str:
        """``String.prototype.replace`` with a function replacement (first match unless ``g``)."""
        count = 0 if self.global_ else 1
        return self.pattern.sub(repl, text, count=count)  # type: ignore[call-overload, no-any-return]

    def search(self, text: str) -> re.Match[str] | None:
        return self.pattern.search(text)


def translate(source: str, *, multiline: bool = False) -> str:
    """Rewrite JS regex syntax into an equivalent Python pattern."""
    out: list[str] = []
    i = 0
    n = len(source)
    in_class = False
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            e = source[i + 1]
            if e == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif e == "D":
                out.append("[^0-9]" if not in_class else r"\D")
            elif e == "w":
                out.append(_WORD if in_class else f"[{_WORD}]")
            elif e == "W":
                out.append(f"[^{_WORD}]" if not in_class else r"\W")
            elif e == "b" and not in_class:
                out.append(_B)
            elif e == "B" and not in_class:
                out.append(_NB)
            elif e == "k" and i + 2 < n and source[i + 2] == "<":
                end = source.find(">", i + 3)
                if end > 0:
                    out.append(f"(?P={source[i + 3 : end]})")
                    i = end + 1
                    continue
                out.append(r"\k")
            elif e == "/":
                out.append("/")
            elif e == "u" and i + 2 < n and source[i + 2] == "{":
                end = source.find("}", i + 3)
                out.append(chr(int(source[i + 3 : end], 16)) if end > 0 else r"\u")
                i = end + 1 if end > 0 else i + 2
                continue
            elif e == "c" and i + 2 < n and source[i + 2].isalpha():
                out.append(re.escape(chr(ord(source[i + 2]) % 32)))
                i += 3
                continue
            elif e.isdigit() and not in_class and e != "0":
                out.append("\\" + e)
            elif e.isalpha() and e not in "dDwWsSbBnrtfvux0123456789":
                # JS treats unknown escapes of letters as the letter itself; Python rejects them.
                out.append(re.escape(e))
            else:
                out.append("\\" + e)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[":
                out.append("\\[")
                i += 1
                continue
            out.append(c)
            i += 1
            continue
        if c == "[":
            if source.startswith("[^]", i):
                out.append(r"[\s\S]")
                i += 3
                continue
            if source.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append(c)
            if i + 1 < n and source[i + 1] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        if c == "(" and source.startswith("(?<", i) and i + 3 < n and source[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        if c == "$" and not multiline:
            out.append(r"\Z")  # JS `$` never matches before a final newline
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def compile_js(source: str, flags: str = "") -> JsRegex:
    """Compile JS ``source`` with JS ``flags``; raises ``re.error``/``ValueError`` when invalid."""
    if any(f not in _VALID_FLAGS for f in flags) or len(set(flags)) != len(flags):
        raise ValueError(f"invalid regex flags {flags!r}")
    py_flags = 0
    if "i" in flags:
        py_flags |= re.IGNORECASE
    if "m" in flags:
        py_flags |= re.MULTILINE
    if "s" in flags:
        py_flags |= re.DOTALL
    pattern = re.compile(translate(source, multiline="m" in flags), py_flags)
    return JsRegex(pattern=pattern, global_="g" in flags, source=source, flags=flags)


_SLASHED = re.compile(r"(/?)(.+)\1([a-z]*)", re.IGNORECASE | re.DOTALL)
_FLAGS_OK = re.compile(r"^(?!.*?(.).*?\1)[gmixXsuUAJ]+$")


@functools.lru_cache(maxsize=4096)
def regex_from_string(text: str) -> JsRegex | None:
    """ST's ``regexFromString``: ``/body/flags`` or a bare pattern; ``None`` when it cannot compile."""
    try:
        m = _SLASHED.match(text)
        if not m:
            return None
        body, flags = m.group(2), m.group(3)
        if flags and not _FLAGS_OK.match(flags):
            return compile_js(text, "")
        return compile_js(body, flags)
    except (re.error, ValueError, OverflowError):
        return None
