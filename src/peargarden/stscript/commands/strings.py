"""Text: ``/upper`` ``/lower`` ``/substr`` ``/trimstart`` ``/trimend`` ``/replace`` ``/test`` ``/match``.

``/trimstart`` drops an incomplete first sentence and ``/trimend`` an incomplete last one, with
SillyTavern's sentence marks (Chinese ones included).  Patterns are JavaScript regexes
(``/pattern/flags``), compiled by the one translator the regex scripts use.
"""

from __future__ import annotations

import math
from typing import Any

import regex

from peargarden.text.jsregex import JsRegex, regex_from_string
from peargarden.text.jsstring import js_trim_end
from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, CommandError

_END_MARKS = frozenset('.!?*")}`]$。！？”）】’」_')
_EMOJI = regex.compile(r"\p{Emoji_Presentation}|\p{Extended_Pictographic}")


def trim_to_end_sentence(text: str) -> str:
    """Everything up to the last sentence mark (or emoji); a space before the mark goes with it."""
    if not text:
        return ""
    last = -1
    for i in range(len(text) - 1, -1, -1):
        char = text[i]
        if char in _END_MARKS or _EMOJI.match(char):
            last = i - 1 if i > 0 and text[i - 1].isspace() else i
            break
    if last == -1:
        return js_trim_end(text)
    return js_trim_end(text[: last + 1])


def trim_to_start_sentence(text: str) -> str:
    """Everything after the first sentence end (``.``, ``!``, ``?`` and a space, or a newline)."""
    if not text:
        return ""
    positions = {mark: text.find(mark) for mark in (".", "!", "?", "\n")}
    first = positions["."]
    skip_one = False
    for mark in ("!", "?", "\n"):
        at = positions[mark]
        if 0 < at < first:
            first = at
            skip_one = mark == "\n"
    if first > 0:
        return text[first + 1 :] if skip_one else text[first + 2 :]
    return text


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _slice_index(value: Any, length: int, default: int) -> int:
    if value is UNDEFINED or value is None or value == "":
        return default
    number = js.number(value)
    if math.isnan(number):
        return 0
    index = int(number) if math.isfinite(number) else (length if number > 0 else -length)
    return max(length + index, 0) if index < 0 else min(index, length)


def _substr(call: Call) -> str:
    text = _text(call)
    start = _slice_index(call.arg("start"), len(text), 0)
    end = _slice_index(call.arg("end"), len(text), len(text))
    return text[start:end]


def _pattern(call: Call) -> JsRegex:
    source = js.string(call.arg("pattern", ""))
    compiled = regex_from_string(source)
    if compiled is None:
        raise CommandError(f"Invalid pattern: {source}")
    return compiled


def _replace(call: Call) -> str:
    text = _text(call)
    mode = js.string(call.arg("mode", "literal"))
    pattern = js.string(call.arg("pattern", ""))
    replacer = js.string(call.arg("replacer", ""))
    if mode == "literal":
        return text.replace(pattern, replacer) if pattern else text
    if mode == "regex":
        compiled = _pattern(call)
        return compiled.replace(text, lambda m: m.expand(_js_template(replacer)))
    raise CommandError("/replace: Invalid mode")


def _js_template(replacer: str) -> str:
    """A JavaScript replacement string (``$1``, ``$&``, ``$$``) as a Python template."""
    out = []
    i = 0
    while i < len(replacer):
        char = replacer[i]
        if char == "$" and i + 1 < len(replacer):
            nxt = replacer[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt == "&":
                out.append(r"\g<0>")
                i += 2
                continue
            if nxt.isdigit():
                out.append(rf"\g<{nxt}>")
                i += 2
                continue
        out.append("\\\\" if char == "\\" else char)
        i += 1
    return "".join(out)


def _test(call: Call) -> str:
    return "true" if _pattern(call).search(_text(call)) else "false"


def _match(call: Call) -> str:
    compiled = _pattern(call)
    text = _text(call)
    if compiled.global_:
        found = [[m.group(0), *m.groups(default=UNDEFINED)] for m in compiled.pattern.finditer(text)]
        return js.stringify(found) or "[]"
    match = compiled.search(text)
    if match is None:
        return ""
    return js.stringify([match.group(0), *match.groups(default=UNDEFINED)]) or ""


_TEXT = (Arg("text", required=True),)

COMMANDS = (
    Command(
        "upper",
        lambda call: _text(call).upper(),
        "The text in upper case.",
        aliases=("uppercase", "to-upper"),
        unnamed=_TEXT,
        returns="the text",
    ),
    Command(
        "lower",
        lambda call: _text(call).lower(),
        "The text in lower case.",
        aliases=("lowercase", "to-lower"),
        unnamed=_TEXT,
        returns="the text",
    ),
    Command(
        "substr",
        _substr,
        "A part of the text, from start to end (JavaScript's slice: negative counts from the end).",
        aliases=("substring",),
        named=(Arg("start", types=("number",)), Arg("end", types=("number",))),
        unnamed=_TEXT,
        returns="the part",
    ),
    Command(
        "trimstart",
        lambda call: trim_to_start_sentence(_text(call)),
        "Drops an incomplete first sentence.",
        unnamed=_TEXT,
        returns="the text",
    ),
    Command(
        "trimend",
        lambda call: trim_to_end_sentence(_text(call)),
        "Drops an incomplete last sentence.",
        unnamed=_TEXT,
        returns="the text",
    ),
    Command(
        "replace",
        _replace,
        "Replaces pattern= with replacer= (mode=literal, or regex with /pattern/flags).",
        aliases=("re",),
        named=(
            Arg("mode", default="literal", choices=("literal", "regex")),
            Arg("pattern", required=True),
            Arg("replacer", default=""),
        ),
        unnamed=_TEXT,
        returns="the text",
    ),
    Command(
        "test",
        _test,
        "Whether the text matches pattern=/regex/.",
        named=(Arg("pattern", required=True),),
        unnamed=_TEXT,
        returns="true or false",
    ),
    Command(
        "match",
        _match,
        "The match of pattern=/regex/ and its groups as JSON (with g: every match).",
        named=(Arg("pattern", required=True),),
        unnamed=_TEXT,
        returns="the match as JSON, or nothing",
    ),
)

__all__ = ["COMMANDS", "trim_to_end_sentence", "trim_to_start_sentence"]
