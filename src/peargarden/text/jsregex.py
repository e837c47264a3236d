"""JavaScript regular expressions for regex scripts: ``/pattern/flags`` parsing and compiling.

The JS → Python translation (ASCII ``\\d \\w \\b``, ``$`` without ``m``, ``[^]``, named groups …) is
:mod:`peargarden.text._jstranslate`, shared with world-info regex keys.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import msgspec

from ._jstranslate import compile_js_pattern

_VALID_FLAGS = set("dgimsuvy")


class JsRegex(msgspec.Struct, frozen=True):
    """A compiled JS regex: the Python pattern plus the JS flags that change how it is used."""

    pattern: Any  # a compiled ``regex`` pattern (JS allows variable-length lookbehind)
    global_: bool
    source: str
    flags: str

    def replace(self, text: str, repl: object) -> str:
        """``String.prototype.replace`` with a function replacement (first match unless ``g``)."""
        count = 0 if self.global_ else 1
        result: str = self.pattern.sub(repl, text, count=count)
        return result

    def search(self, text: str) -> Any:
        return self.pattern.search(text)


def compile_js(source: str, flags: str = "") -> JsRegex:
    """Compile JS ``source`` with JS ``flags``; raises ``re.error``/``ValueError`` when invalid."""
    if any(f not in _VALID_FLAGS for f in flags) or len(set(flags)) != len(flags):
        raise ValueError(f"invalid regex flags {flags!r}")
    pattern = compile_js_pattern(source, flags)
    return JsRegex(pattern=pattern, global_="g" in flags, source=source, flags=flags)


_SLASHED = re.compile(r"(/?)(.+)\1([a-z]*)", re.IGNORECASE | re.DOTALL)
_FLAGS_OK = re.compile(r"^(?!.*?(.).*?\1)[gmixXsuUAJ]+$")


@functools.lru_cache(maxsize=4096)
def regex_from_string(text: str) -> JsRegex | None:
    """ST's ``regexFromString``: ``/body/flags`` or a bare pattern; ``None`` when it cannot compile."""
    import regex  # heavy (19 modules): loaded by the first regex a card really has

    try:
        m = _SLASHED.match(text)
        if not m:
            return None
        body, flags = m.group(2), m.group(3)
        if flags and not _FLAGS_OK.match(flags):
            return compile_js(text, "")
        return compile_js(body, flags)
    except (re.error, regex.error, ValueError, OverflowError, RecursionError):
        return None
