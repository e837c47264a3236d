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
from typing import Any

from peargarden.text.jsstring import js_length as js_length  # re-exported: the engine's callers use it
from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import (
    UNDEFINED,
    is_number,
    json_stringify,
    number_to_string,
    object_keys,
    quote_json,
    truthy,
)
from peargarden.text.jsvalue import to_string as to_js_string

__all__ = [
    "UNDEFINED",
    "JsValue",
    "clone",
    "from_json",
    "is_equal",
    "is_number",
    "is_object",
    "is_plain_object",
    "js_keys",
    "js_length",
    "js_number",
    "js_ordered",
    "json_stringify",
    "number_to_string",
    "quote_json",
    "to_js_string",
    "to_number",
    "truthy",
    "typeof",
]


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


def is_object(value: object) -> bool:
    """``_.isObject`` for JSON values: an object or an array."""
    return isinstance(value, dict | list)


def is_plain_object(value: object) -> bool:
    return isinstance(value, dict)


def js_keys(obj: dict[str, JsValue]) -> list[str]:
    """``Object.keys(obj)``: integer-like keys first, ascending, then the rest in insertion order."""
    return object_keys(obj)


def js_ordered(obj: dict[str, JsValue]) -> dict[str, JsValue]:
    """The same object with its keys in JavaScript's order (a new dict only when they differ)."""
    keys = js_keys(obj)
    if keys == list(obj):
        return obj
    return {key: obj[key] for key in keys}


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
