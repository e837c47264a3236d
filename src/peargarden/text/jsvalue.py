"""JavaScript values as SillyTavern's and its extensions' code sees them: ``undefined``, truthiness,
``String()``, the order of an object's keys, ``JSON.stringify``.

Shared by the world-info engine and the MVU variables engine, so that one ``undefined`` and one way
of printing a number serve both.  Values are Python ``dict`` / ``list`` / ``str`` / ``int`` / ``float`` /
``bool`` / ``None`` plus ``UNDEFINED``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final


class _Undefined:
    """JavaScript's ``undefined``: a missing value, left out of JSON objects."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final[Any] = _Undefined()

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def is_number(value: object) -> bool:
    """``typeof value === 'number'``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def number_to_string(value: float) -> str:
    """``Number.prototype.toString()``: the shortest digits that round-trip, in JavaScript's layout."""
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) < 10**21:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # ``point``: where the decimal point falls after the first significant digit's position.
    point = len(whole) + (int(exponent) if exponent else 0)
    if whole == "0":
        stripped = fraction.lstrip("0")
        point = -(len(fraction) - len(stripped)) + (int(exponent) if exponent else 0)
        digits = stripped
    digits = digits.rstrip("0") or "0"
    count = len(digits)
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * (-point) + digits
    power = point - 1
    exp_text = f"e{'+' if power >= 0 else '-'}{abs(power)}"
    if count == 1:
        return sign + digits + exp_text
    return sign + digits[0] + "." + digits[1:] + exp_text


def to_string(value: Any) -> str:
    """``String(value)``."""
    if type(value) is str:
        return value
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return number_to_string(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if item is None or item is UNDEFINED else to_string(item) for item in value)
    return "[object Object]"


def truthy(value: Any) -> bool:
    """JavaScript truthiness: objects and arrays (even empty) are true; ``0``, ``""``, ``NaN``, ``null`` false."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, int | float):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


def object_keys(keys: Iterable[str]) -> list[str]:
    """Own-property order of a JavaScript object: array-index keys ascending, then the rest in order."""
    index_keys: list[tuple[int, str]] = []
    other: list[str] = []
    for key in keys:
        if _ARRAY_INDEX.fullmatch(key) and int(key) < 2**32 - 1:
            index_keys.append((int(key), key))
        else:
            other.append(key)
    if not index_keys:
        return other
    index_keys.sort()
    return [k for _, k in index_keys] + other


def quote_json(text: str) -> str:
    """``JSON.stringify`` of a string."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif code < 0x20:
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\u{code:04x}"))
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def json_stringify(value: Any, indent: int = 0, _level: int = 0) -> str | None:
    """``JSON.stringify(value, null, indent)``; ``None`` where JavaScript returns ``undefined``.

    A tuple is an array; a value JSON has no form for (a function, a class) is ``null``.
    """
    if value is UNDEFINED:
        return None
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        return number_to_string(value) if math.isfinite(value) else "null"
    if isinstance(value, str):
        return quote_json(value)
    if isinstance(value, list | tuple):
        items = [json_stringify(item, indent, _level + 1) or "null" for item in value]
        return _wrap("[", "]", items, indent, _level)
    if isinstance(value, Mapping):
        parts = []
        separator = ": " if indent else ":"
        for key in object_keys(str(k) for k in value):
            text = json_stringify(value[key], indent, _level + 1)
            if text is not None:
                parts.append(quote_json(key) + separator + text)
        return _wrap("{", "}", parts, indent, _level)
    return "null"


def _wrap(opening: str, closing: str, items: list[str], indent: int, level: int) -> str:
    if not indent or not items:
        return opening + ",".join(items) + closing
    inner = "\n" + " " * (indent * (level + 1))
    outer = "\n" + " " * (indent * level)
    return opening + inner + ("," + inner).join(items) + outer + closing
