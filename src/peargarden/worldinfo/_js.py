"""JavaScript value semantics the scanner depends on (truthiness, String(), JSON.stringify, hashes).

SillyTavern reads lorebook fields without defaults, so a Python port has to answer questions such as
"is this field truthy?" or "what does JSON.stringify print for this entry?" exactly as V8 would.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from typing import Any

# The values' semantics are shared with the variables engine (one ``undefined``, one number format).
from peargarden.text.jsvalue import UNDEFINED, json_stringify, number_to_string, object_keys, to_string, truthy

__all__ = [
    "UNDEFINED",
    "coalesce",
    "get",
    "is_nullish",
    "js_to_string",
    "loose_equals_true",
    "number_to_string",
    "object_keys",
    "string_hash",
    "stringify",
    "to_number",
    "to_string",
    "truthy",
]


def get(obj: Mapping[str, Any], name: str) -> Any:
    """``obj[name]`` with ``undefined`` for a missing field."""
    return obj.get(name, UNDEFINED)


def is_nullish(value: Any) -> bool:
    """``value === null || value === undefined``: the ``??`` test."""
    return value is None or value is UNDEFINED


def coalesce(value: Any, default: Any) -> Any:
    """``value ?? default``."""
    return default if is_nullish(value) else value


def to_number(value: Any) -> float:
    """``Number(value)`` for the JSON values a lorebook can hold."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        try:
            if text.lower().startswith(("0x", "0o", "0b")):
                return float(int(text, 0))
            if text in ("Infinity", "+Infinity"):
                return math.inf
            if text == "-Infinity":
                return -math.inf
            if text.lower() in ("inf", "+inf", "-inf", "nan", "infinity", "+infinity", "-infinity"):
                return math.nan
            return float(text)
        except ValueError:
            return math.nan
    if isinstance(value, list):
        if not value:
            return 0.0
        if len(value) == 1:
            return to_number(to_string(value[0]))
    return math.nan


def loose_equals_true(value: Any) -> bool:
    """``value == true`` (abstract equality: compares ``Number(value)`` with 1)."""
    if value is None or value is UNDEFINED:
        return False
    if isinstance(value, Mapping):
        return False
    return to_number(value) == 1.0


js_to_string = to_string


def stringify(value: Any) -> str:
    """``JSON.stringify(value)`` (no indentation) for JSON-like Python values."""
    return json_stringify(value) or "null"


_MASK = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & _MASK


def string_hash(text: str, seed: int = 0) -> int:
    """SillyTavern ``getStringHash`` (cyrb53 over UTF-16 code units)."""
    h1 = (0xDEADBEEF ^ seed) & _MASK
    h2 = (0x41C6CE57 ^ seed) & _MASK
    data = text.encode("utf-16-le", "surrogatepass")
    for (unit,) in struct.iter_unpack("<H", data):
        h1 = _imul(h1 ^ unit, 2654435761)
        h2 = _imul(h2 ^ unit, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & _MASK)
