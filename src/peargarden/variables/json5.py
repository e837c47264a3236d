"""JSON5 (as the JavaScript ``json5`` package reads it) and the JavaScript literals MVU evaluates.

One recursive-descent reader, two dialects.  ``parse_json5`` is JSON5: comments, unquoted
identifier keys, single quotes, trailing commas, hex, ``Infinity``/``NaN``, leading/trailing dots,
explicit ``+``.  ``parse_js_literal`` is what ``new Function('return ' + text)()`` gives for the
object and array literals a model writes in a command (``{name: "小梨", 物品: ['扇']}``): JSON5 plus
numeric keys, back-quoted strings and ``undefined``; anything needing real evaluation (``${x}``,
calls, arithmetic) raises, as it would fail or differ in MVU's sandbox-less evaluation.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from peargarden.variables.jsvalues import UNDEFINED, js_number, to_js_string


class Json5Error(ValueError):
    """The text is not a JSON5 (or JavaScript literal) value."""


_LINE_TERMINATORS = "\n\r\u2028\u2029"
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SINGLE_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", '"': '"', "\\": "\\"}


def _is_space(char: str) -> bool:
    return char in "\t\v\f \u00a0\ufeff" or char in _LINE_TERMINATORS or unicodedata.category(char) == "Zs"


def _is_id_start(char: str) -> bool:
    return char in "$_" or unicodedata.category(char) in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nl")


def _is_id_continue(char: str) -> bool:
    return _is_id_start(char) or unicodedata.category(char) in ("Mn", "Mc", "Nd", "Pc") or char in "\u200c\u200d"


class _Reader:
    def __init__(self, text: str, *, js: bool) -> None:
        self.text = text
        self.pos = 0
        self.js = js

    def fail(self, what: str) -> Json5Error:
        return Json5Error(f"JSON5: {what} at {self.pos}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if _is_space(char):
                self.pos += 1
            elif text.startswith("//", self.pos):
                while self.pos < len(text) and text[self.pos] not in _LINE_TERMINATORS:
                    self.pos += 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end == -1:
                    raise self.fail("unterminated comment")
                self.pos = end + 2
            else:
                return

    def value(self) -> Any:
        self.skip_space()
        char = self.peek()
        if not char:
            raise self.fail("unexpected end of input")
        if char == "{":
            return self.obj()
        if char == "[":
            return self.array()
        if char in "\"'" or (self.js and char == "`"):
            return self.string()
        if char in "+-":
            self.pos += 1
            sign = -1 if char == "-" else 1
            number = self.unsigned_number()
            return js_number(sign * number) if not (sign < 0 and number == 0) else 0
        if char.isdigit() or char == ".":
            return js_number(self.unsigned_number())
        word = self.identifier()
        if word == "null":
            return None
        if word in ("true", "false"):
            return word == "true"
        if word in ("Infinity", "NaN"):
            return math.inf if word == "Infinity" else math.nan
        if self.js and word == "undefined":
            return UNDEFINED
        raise self.fail(f"unexpected {word or char or 'end of input'!r}")

    def unsigned_number(self) -> float:
        text = self.text
        for word, number in (("Infinity", math.inf), ("NaN", math.nan)):
            if text.startswith(word, self.pos):
                self.pos += len(word)
                return number
        match = _NUMBER.match(text, self.pos)
        if not match or match.group(0) == ".":
            raise self.fail("bad number")
        self.pos = match.end()
        if self.peek().isdigit() or _is_id_start(self.peek() or " "):
            raise self.fail("bad number")
        literal = match.group(0)
        if literal[:2] in ("0x", "0X"):
            return float(int(literal, 16))
        return float(literal)

    def identifier(self) -> str:
        start = self.pos
        chars: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.text.startswith("\\u", self.pos):
                code = self.text[self.pos + 2 : self.pos + 6]
                if not re.fullmatch(r"[0-9a-fA-F]{4}", code):
                    raise self.fail("bad escape")
                char = chr(int(code, 16))
                self.pos += 6
            elif (_is_id_start(char) if self.pos == start else _is_id_continue(char)) and char != "\\":
                self.pos += 1
            else:
                break
            if not chars and not _is_id_start(char):
                raise self.fail("bad identifier")
            chars.append(char)
        return "".join(chars)

    def string(self) -> str:
        quote = self.text[self.pos]
        self.pos += 1
        out: list[str] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                raise self.fail("unterminated string")
            char = text[self.pos]
            if char == quote:
                self.pos += 1
                return "".join(out)
            if char == "\\":
                out.append(self.escape())
                continue
            if quote == "`" and text.startswith("${", self.pos):
                raise self.fail("template substitution")
            if char in "\n\r" and quote != "`":
                raise self.fail("line break in string")
            out.append(char)
            self.pos += 1

    def escape(self) -> str:
        text = self.text
        self.pos += 1
        char = text[self.pos] if self.pos < len(text) else ""
        self.pos += 1
        if not char:
            raise self.fail("unterminated string")
        if char in _SINGLE_ESCAPES:
            return _SINGLE_ESCAPES[char]
        if char == "0" and not (self.peek().isdigit()):
            return "\0"
        if char in "xu":
            size = 2 if char == "x" else 4
            code = text[self.pos : self.pos + size]
            if not re.fullmatch(f"[0-9a-fA-F]{{{size}}}", code):
                raise self.fail("bad escape")
            self.pos += size
            return chr(int(code, 16))
        if char == "\r" and self.peek() == "\n":
            self.pos += 1
            return ""
        if char in _LINE_TERMINATORS:
            return ""
        if char.isdigit() or not char:
            raise self.fail("bad escape")
        return char

    def key(self) -> str:
        char = self.peek()
        if not char:
            raise self.fail("unexpected end of input")
        if char in "\"'":
            return self.string()
        if self.js and (char.isdigit() or char == "."):
            return to_js_string(js_number(self.unsigned_number()))
        word = self.identifier()
        if not word:
            raise self.fail("bad key")
        return word

    def obj(self) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        while True:
            self.skip_space()
            if self.peek() == "}":
                self.pos += 1
                return result
            name = self.key()
            self.skip_space()
            if self.peek() != ":":
                raise self.fail("expected ':'")
            self.pos += 1
            result[name] = self.value()
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "}":
                raise self.fail("expected ',' or '}'")

    def array(self) -> list[Any]:
        self.pos += 1
        result: list[Any] = []
        while True:
            self.skip_space()
            if self.peek() == "]":
                self.pos += 1
                return result
            result.append(self.value())
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != "]":
                raise self.fail("expected ',' or ']'")


def _parse(text: str, *, js: bool) -> Any:
    reader = _Reader(text, js=js)
    try:
        result = reader.value()
    except RecursionError as error:
        raise Json5Error("JSON5: nested too deeply") from error
    reader.skip_space()
    if reader.pos != len(text):
        raise reader.fail("unexpected text after the value")
    return result


def parse_json5(text: str) -> Any:
    """``JSON5.parse(text)``."""
    return _parse(text, js=False)


def parse_js_literal(text: str) -> Any:
    """``new Function('return ' + text)()`` for an object or array literal made of constants."""
    return _parse(text, js=True)
