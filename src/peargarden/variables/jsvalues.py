"""JSON values as JavaScript holds them: numbers, ``undefined``, key order, ``JSON.stringify``.

MVU runs in a browser, so its results depend on JavaScript's rules: every number is a double
(``5`` and ``5.0`` are one value, printed ``5``), an object lists integer-like keys first in
ascending order and then the others in insertion order, ``undefined`` is a value distinct from
``null`` that ``JSON.stringify`` leaves out.  Values here are Python ``dict`` / ``list`` / ``str`` /
``int`` / ``float`` / ``bool`` / ``None`` plus ``UNDEFINED``; numbers with an integral value are kept as
``int`` (``js_number``) so that the Python value and its JSON text look like JavaScript's.
"""

from __future__ import annotations

import math
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

JsValue = Any
"""A JSON value, or ``UNDEFINED``: dict / list / str / int / float / bool / None."""

_MAX_SAFE = 2**53


def js_number(value: float) -> int | float:
    """One JavaScript number as Python keeps it: integral values as ``int``, others as ``float``."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if abs(value) < _MAX_SAFE else float(value)
    if math.isfinite(value) and value.is_integer() and abs(value) < _MAX_SAFE:
        return int(value)
    return value


def is_number(value: object) -> bool:
    """``typeof value === 'number'``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_object(value: object) -> bool:
    """``_.isObject`` for JSON values: an object or an array."""
    return isinstance(value, dict | list)


def is_plain_object(value: object) -> bool:
    return isinstance(value, dict)


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


def to_js_string(value: JsValue) -> str:
    """``String(value)`` for JSON values."""
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
    if isinstance(value, list):
        return ",".join("" if item is None or item is UNDEFINED else to_js_string(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _is_array_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1


def js_keys(obj: dict[str, JsValue]) -> list[str]:
    """``Object.keys(obj)``: integer-like keys first, ascending, then the rest in insertion order."""
    numeric = [key for key in obj if _is_array_index(key)]
    if not numeric:
        return list(obj)
    numeric.sort(key=int)
    return numeric + [key for key in obj if not _is_array_index(key)]


def js_ordered(obj: dict[str, JsValue]) -> dict[str, JsValue]:
    """The same object with its keys in JavaScript's order (a new dict only when they differ)."""
    keys = js_keys(obj)
    if keys == list(obj):
        return obj
    return {key: obj[key] for key in keys}


def _quote(text: str) -> str:
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


def json_stringify(value: JsValue, indent: int = 0, _level: int = 0) -> str | None:
    """``JSON.stringify(value, null, indent)``; ``None`` where JavaScript returns ``undefined``."""
    if indent and isinstance(value, list | dict) and value:
        return _stringify_indented(value, indent, _level)
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
        return _quote(value)
    if isinstance(value, list):
        return "[" + ",".join(json_stringify(item) or "null" for item in value) + "]"
    if isinstance(value, dict):
        parts = []
        for key in js_keys(value):
            text = json_stringify(value[key])
            if text is not None:
                parts.append(_quote(key) + ":" + text)
        return "{" + ",".join(parts) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _stringify_indented(value: list[JsValue] | dict[str, JsValue], indent: int, level: int) -> str:
    inner = "\n" + " " * (indent * (level + 1))
    outer = "\n" + " " * (indent * level)
    if isinstance(value, list):
        items = [json_stringify(item, indent, level + 1) or "null" for item in value]
        return "[" + inner + ("," + inner).join(items) + outer + "]"
    parts = []
    for key in js_keys(value):
        text = json_stringify(value[key], indent, level + 1)
        if text is not None:
            parts.append(_quote(key) + ": " + text)
    if not parts:
        return "{}"
    return "{" + inner + ("," + inner).join(parts) + outer + "}"


def from_json(value: JsValue) -> JsValue:
    """A value read by Python's ``json`` made JavaScript-like: integral numbers as ``int``."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return js_number(value)
    if isinstance(value, list):
        return [from_json(item) for item in value]
    if isinstance(value, dict):
        return {key: from_json(item) for key, item in value.items()}
    return value


def clone(value: JsValue) -> JsValue:
    """A deep copy (``klona``) of a JSON value."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value


def is_equal(left: JsValue, right: JsValue) -> bool:
    """``_.isEqual`` for JSON values (numbers by value, objects regardless of key order)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(is_equal(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(is_equal(a, b) for a, b in zip(left, right, strict=True))
    if is_number(left) and is_number(right):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if type(left) is not type(right) and not (left is None and right is None):
        return False
    return bool(left == right)


def typeof(value: JsValue) -> str:
    """``typeof value`` for JSON values."""
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"


def truthy(value: JsValue) -> bool:
    """JavaScript truthiness: objects and arrays (even empty) are true; ``0``, ``""``, ``NaN``, ``null`` false."""
    if isinstance(value, dict | list):
        return True
    if is_number(value):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    return bool(value)


def to_number(value: JsValue) -> int | float:
    """``Number(value)`` for JSON values (``NaN`` where JavaScript gives it)."""
    if value is None or value is False:
        return 0
    if value is True:
        return 1
    if is_number(value):
        return js_number(value)
    if isinstance(value, list):
        if not value:
            return 0
        return to_number(to_js_string(value)) if len(value) == 1 else math.nan
    if isinstance(value, str):
        from peargarden.text.jsstring import js_trim

        text = js_trim(value)
        if not text:
            return 0
        lowered = text.lower()
        try:
            if lowered[:2] in ("0x", "0o", "0b") and text[:1] == "0":
                return js_number(int(text[2:], {"x": 16, "o": 8, "b": 2}[lowered[1]]))
            if text in ("Infinity", "+Infinity", "-Infinity"):
                return -math.inf if text.startswith("-") else math.inf
            if not all(char in "0123456789+-.eE" for char in text) or "_" in text:
                return math.nan
            return js_number(float(text))
        except ValueError:
            return math.nan
    return math.nan


def js_length(text: str) -> int:
    """``String.prototype.length``: UTF-16 code units (a character outside the BMP counts two)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)
