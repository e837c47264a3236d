"""The repairs MVU's ``parseString`` gets from the JavaScript ``jsonrepair`` package, read straight to a value.

Only for text that starts like JSON (``{`` or ``[``) and that JSON5 refused: missing commas and
closing brackets (a reply cut off mid-patch), leading or doubled commas, unquoted keys and
values, comments, Python's ``None``/``True``/``False``, ``undefined``, and several objects one per
line (newline-delimited JSON), which become one array.  Text after a complete value is an error, as
there.  The Python ``json_repair`` package repairs differently (it keeps only the last of several
objects), so this small reader follows ``jsonrepair``'s rules instead.
"""

from __future__ import annotations

import re
from typing import Any

from peargarden.variables.json5 import Json5Error, _is_space
from peargarden.variables.jsvalues import js_number

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_DELIMITERS = ",:[]{}\"'\n"
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’", "`": "`"}
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\", "/": "/"}
_SYMBOLS = {"null": None, "true": True, "false": False, "None": None, "True": True, "False": False, "undefined": None}


class JsonRepairError(ValueError):
    """The text could not be repaired into JSON."""


class _Repairer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> JsonRepairError:
        return JsonRepairError(f"jsonrepair: {what} at position {self.pos}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            if _is_space(text[self.pos]):
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end == -1 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                self.pos = len(text) if end == -1 else end + 2
            elif text.startswith("```", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end == -1 else end
            else:
                return

    def skip_commas(self) -> None:
        self.skip()
        while self.peek() == ",":
            self.pos += 1
            self.skip()

    def value(self) -> Any:
        self.skip()
        char = self.peek()
        if char == "{":
            return self.obj()
        if char == "[":
            return self.array()
        if char in _QUOTE_PAIRS:
            return self.string()
        number = _NUMBER.match(self.text, self.pos)
        if number and not self.unquoted_continues(number.end()):
            self.pos = number.end()
            return js_number(float(number.group(0)) if re.search(r"[.eE]", number.group(0)) else int(number.group(0)))
        word = self.unquoted()
        if not word:
            raise self.fail(f"unexpected character {char!r}" if char else "unexpected end of text")
        return _SYMBOLS.get(word, word)

    def unquoted_continues(self, end: int) -> bool:
        return end < len(self.text) and self.text[end] not in _DELIMITERS and not _is_space(self.text[end])

    def unquoted(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _DELIMITERS:
            self.pos += 1
        return self.text[start : self.pos].rstrip()

    def string(self) -> str:
        closing = _QUOTE_PAIRS[self.text[self.pos]]
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == closing or (closing in '"”' and char in '"”'):
                self.pos += 1
                return "".join(out)
            if char == "\\" and self.pos + 1 < len(self.text):
                escaped = self.text[self.pos + 1]
                if escaped == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", self.text[self.pos + 2 : self.pos + 6]):
                    out.append(chr(int(self.text[self.pos + 2 : self.pos + 6], 16)))
                    self.pos += 6
                    continue
                out.append(_ESCAPES.get(escaped, escaped))
                self.pos += 2
                continue
            out.append(char)
            self.pos += 1
        return "".join(out)  # an unterminated string ends with the text

    def key(self) -> str:
        if self.peek() in _QUOTE_PAIRS:
            return self.string()
        start = self.pos
        while (
            self.pos < len(self.text) and self.text[self.pos] not in ":,{}[]\n" and not _is_space(self.text[self.pos])
        ):
            self.pos += 1
        if self.pos == start:
            raise self.fail("object key expected")
        return self.text[start : self.pos]

    def obj(self) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        self.skip_commas()
        while self.pos < len(self.text) and self.peek() != "}":
            if self.peek() == "]":
                break
            name = self.key()
            self.skip()
            if self.peek() == ":":
                self.pos += 1
                result[name] = self.value()
            elif self.peek() and self.peek() not in ",}]":
                result[name] = self.value()  # a missing colon
            else:
                result[name] = None
            self.skip_commas()
        if self.peek() in ("}", "]"):
            self.pos += 1  # a "]" closing an object is taken as the "}" it should be
        return result

    def array(self) -> list[Any]:
        self.pos += 1
        result: list[Any] = []
        self.skip_commas()
        while self.pos < len(self.text) and self.peek() != "]":
            if self.peek() == "}":
                break
            if self.text.startswith("...", self.pos):
                self.pos += 3
            else:
                result.append(self.value())
            self.skip_commas()
        if self.peek() in ("]", "}"):
            self.pos += 1  # a "}" closing an array is taken as the "]" it should be
        return result


def repair_json(text: str) -> Any:
    """The value ``JSON.parse(jsonrepair(text))`` gives, or ``JsonRepairError``."""
    reader = _Repairer(text)
    try:
        first = reader.value()
        values = [first]
        reader.skip_commas()
        # Several complete values in a row are newline-delimited JSON: one array of them.
        while reader.pos < len(text) and reader.peek() in ("{", "["):
            values.append(reader.value())
            reader.skip_commas()
        # Closing brackets left over at the end are dropped.
        while reader.peek() in ("]", "}"):
            reader.pos += 1
            reader.skip()
    except (RecursionError, Json5Error) as error:
        raise JsonRepairError(str(error)) from error
    if reader.pos != len(text):
        raise reader.fail(f"unexpected character {reader.peek()!r}")
    return first if len(values) == 1 else values
