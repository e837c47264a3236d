"""Text: ``/upper`` ``/lower`` ``/substr`` ``/trimstart`` ``/trimend`` ``/replace`` ``/test`` ``/match``.

``/trimstart`` drops an incomplete first sentence and ``/trimend`` an incomplete last one, with
SillyTavern's sentence marks (Chinese ones included).  Patterns are JavaScript regexes
(``/pattern/flags``), compiled by the one translator the regex scripts use.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import regex

from peargarden.text.jsregex import JsRegex, regex_from_string
from peargarden.text.jsstring import JS_SPACE, js_trim_end
from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, CommandError

_END_MARKS = frozenset('.!?*")}`]$。！？”）】’」_')
_EMOJI = regex.compile(r"\p{Emoji_Presentation}|\p{Extended_Pictographic}")


def trim_to_end_sentence(text: str) -> str:
    """Everything up to the last sentence mark (or emoji); a space before a mark goes with it."""
    if not text:
        return ""
    last = -1
    for i in range(len(text) - 1, -1, -1):
        char = text[i]
        emoji = _EMOJI.match(char) is not None
        if char in _END_MARKS or emoji:
            # A space before a mark goes with it; before an emoji it stays (SillyTavern's rule).
            last = i - 1 if not emoji and i > 0 and text[i - 1] in JS_SPACE else i
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


def _slice_index(value: Any, length: int) -> int:
    """``String.prototype.slice``'s reading of an index (``NaN`` is 0; negative counts from the end)."""
    number = js.number(value)
    if math.isnan(number):
        return 0
    index = int(number) if math.isfinite(number) else (length if number > 0 else -length)
    return max(length + index, 0) if index < 0 else min(index, length)


def _substr(call: Call) -> str:
    """``text.slice(Number(start), end && Number(end))``, in UTF-16 code units as JavaScript counts."""
    value = call.value
    if not isinstance(value, str):
        return ""
    units = value.encode("utf-16-le", "surrogatepass")
    length = len(units) // 2
    start = _slice_index(call.arg("start"), length)
    end_given = call.arg("end")
    end = length if end_given is UNDEFINED or end_given is None else _slice_index(end_given, length)
    return units[start * 2 : max(start, end) * 2].decode("utf-16-le", "surrogatepass")


_EMPTY_PATTERN = "Argument of 'pattern=' cannot be empty"


def _pattern(call: Call) -> JsRegex:
    source = call.arg("pattern", "")
    if not js.truthy(source):
        raise CommandError(_EMPTY_PATTERN)
    compiled = regex_from_string(js.string(source))
    if compiled is None:
        raise CommandError("The value of 'pattern' argument is not a valid regular expression.")
    return compiled


def substitution(
    replacer: str,
    matched: str,
    position: int,
    text: str,
    groups: Sequence[str | None] = (),
    named: Mapping[str, str | None] | None = None,
) -> str:
    """JavaScript's ``GetSubstitution``: ``$$``, ``$&``, ``$```, ``$'``, ``$1``–``$99`` (two digits
    when that group exists, else one digit and the other as text; ``$0`` and groups that do not exist
    stay as written), ``$<name>`` (only when the pattern names groups).  A group that did not take
    part gives nothing."""
    out: list[str] = []
    i = 0
    count = len(groups)
    while i < len(replacer):
        char = replacer[i]
        nxt = replacer[i + 1] if i + 1 < len(replacer) else ""
        if char != "$" or not nxt:
            out.append(char)
            i += 1
        elif nxt == "$":
            out.append("$")
            i += 2
        elif nxt == "&":
            out.append(matched)
            i += 2
        elif nxt == "`":
            out.append(text[:position])
            i += 2
        elif nxt == "'":
            out.append(text[position + len(matched) :])
            i += 2
        elif nxt in "0123456789":
            two = replacer[i + 1 : i + 3]
            if len(two) == 2 and two.isascii() and two.isdigit() and 1 <= int(two) <= count:
                out.append(groups[int(two) - 1] or "")
                i += 3
            elif 1 <= int(nxt) <= count:
                out.append(groups[int(nxt) - 1] or "")
                i += 2
            else:
                out.append(char)
                i += 1
        elif nxt == "<" and named is not None:
            end = replacer.find(">", i + 2)
            if end < 0:
                out.append("$<")
                i += 2
            else:
                out.append(named.get(replacer[i + 2 : end]) or "")
                i = end + 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _replace_literal(text: str, pattern: str, replacer: str, *, first_only: bool = False) -> str:
    """``replaceAll`` (or ``replace``) with a text pattern: each occurrence through ``substitution``."""
    out: list[str] = []
    start = 0
    while True:
        found = text.find(pattern, start)
        if found < 0:
            break
        out.append(text[start:found])
        out.append(substitution(replacer, pattern, found, text))
        start = found + len(pattern)
        if first_only:
            break
    out.append(text[start:])
    return "".join(out)


def _replace(call: Call) -> str:
    pattern = call.arg("pattern", UNDEFINED)
    if not js.truthy(pattern):
        raise CommandError(_EMPTY_PATTERN)
    text = _text(call)
    source = js.string(pattern)
    replacer = js.string(call.arg("replacer", ""))
    mode = call.arg("mode", "literal")
    if mode == "literal":
        return _replace_literal(text, source, replacer)
    if mode == "regex":
        compiled = regex_from_string(source)
        if compiled is None:
            # ``text.replace(undefined, …)``: JavaScript looks for the text "undefined".
            return _replace_literal(text, "undefined", replacer, first_only=True)

        def one(match: Any) -> str:
            named = match.groupdict() if match.re.groupindex else None
            return substitution(replacer, match.group(0), match.start(), text, match.groups(), named)

        return compiled.replace(text, one)
    raise CommandError("Invalid '/replace mode=' argument specified!")


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
