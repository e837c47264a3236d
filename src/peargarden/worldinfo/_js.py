"""JavaScript value semantics the scanner depends on (truthiness, String(), JSON.stringify, hashes).

SillyTavern reads lorebook fields without defaults, so a Python port has to answer questions such as
"is this field truthy?" or "what does JSON.stringify print for this entry?" exactly as V8 would.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any


class _Undefined:
    """JavaScript ``undefined``: what reading a missing field yields."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Any = _Undefined()

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")


def get(obj: Mapping[str, Any], name: str) -> Any:
    """``obj[name]`` with ``undefined`` for a missing field."""
    return obj.get(name, UNDEFINED)


def is_nullish(value: Any) -> bool:
    """``value === null || value === undefined``: the ``??`` test."""
    return value is None or value is UNDEFINED


def coalesce(value: Any, default: Any) -> Any:
    """``value ?? default``."""
    return default if is_nullish(value) else value


def truthy(value: Any) -> bool:
    """JavaScript truthiness (``[]`` and ``{}`` are truthy, ``NaN`` is not)."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, int | float):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


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


def number_to_string(value: float) -> str:
    """``String(number)``: ECMAScript Number::toString on the shortest round-trip digits."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    parts = Decimal(repr(abs(float(value)))).normalize().as_tuple()
    digits = "".join(str(d) for d in parts.digits)
    k = len(digits)
    n = k + int(parts.exponent)  # position of the decimal point relative to the digits
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        exp = n - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        body = f"{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp)}"
    return sign + body


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
    if isinstance(value, int | float):
        return number_to_string(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if is_nullish(v) else to_string(v) for v in value)
    return "[object Object]"


js_to_string = to_string


def object_keys(keys: Iterable[str]) -> list[str]:
    """Own-property order of a JavaScript object: array-index keys ascending, then the rest in order."""
    index_keys: list[tuple[int, str]] = []
    other: list[str] = []
    for key in keys:
        if _ARRAY_INDEX.fullmatch(key) and int(key) < 2**32 - 1:
            index_keys.append((int(key), key))
        else:
            other.append(key)
    index_keys.sort()
    return [k for _, k in index_keys] + other


def _quote(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def stringify(value: Any) -> str:
    """``JSON.stringify(value)`` (no indentation) for JSON-like Python values."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        number = float(value)
        return "null" if math.isnan(number) or math.isinf(number) else number_to_string(number)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join("null" if v is UNDEFINED else stringify(v) for v in value) + "]"
    if isinstance(value, Mapping):
        parts = []
        for key in object_keys(str(k) for k in value):
            item = value[key]
            if item is UNDEFINED:
                continue
            parts.append(_quote(key) + ":" + stringify(item))
        return "{" + ",".join(parts) + "}"
    return "null"


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
