"""JavaScript's view of the values an STscript handles, where SillyTavern's results depend on it.

Script values are ``str``, numbers, ``UNDEFINED``, ``None`` (``null``), parsed JSON (``dict`` /
``list``) and closures (:class:`~.runtime.ClosureValue`, printed ``[Closure]``).  Variables hold text
mostly; a few commands store numbers, and ``index=`` reads and writes inside a JSON text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from peargarden.text._jsnum import js_number
from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import UNDEFINED, is_number, json_stringify, number_to_string, to_string, truthy

_TRUE_WORDS = ("on", "true", "1")
_FALSE_WORDS = ("off", "false", "0")


class JsTypeError(Exception):
    """Where JavaScript would throw a ``TypeError`` (reading a member of ``null``, setting one on a string)."""


class JsonError(ValueError):
    """``JSON.parse`` refused its text."""


def _no_constant(name: str) -> object:
    raise JsonError(f"Unexpected token {name[:1]}")


def json_parse(value: Any) -> Any:
    """``JSON.parse(value)``: the text of ``String(value)`` as strict JSON (no NaN, no Infinity)."""
    text = value if isinstance(value, str) else to_string(value)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise JsonError(str(error)) from error


_PLAIN_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def number(value: Any) -> float:
    """``Number(value)``."""
    kind = type(value)
    if kind is int or kind is float:
        return float(value)
    if kind is str and _PLAIN_NUMBER.fullmatch(value):
        return float(value)  # the common case, without the general JavaScript grammar
    if value is UNDEFINED:
        return math.nan
    if value is None:
        return 0.0
    if isinstance(value, bool | int | float | str):
        return js_number(value)
    if isinstance(value, list):
        if not value:
            return 0.0
        if len(value) == 1:
            return number(to_string(value[0]) if value[0] not in (None, UNDEFINED) else "")
        return math.nan
    return math.nan  # objects, closures


def is_nan(value: Any) -> bool:
    """``isNaN(value)``."""
    return math.isnan(number(value))


def as_js_number(value: float) -> int | float:
    """A float as JavaScript prints it: integral values as ``int`` so they print without ``.0``."""
    if isinstance(value, int):
        return value
    if math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def string(value: Any) -> str:
    """``String(value)``; a closure prints ``[Closure]``."""
    if isinstance(value, str):
        return value
    if value is UNDEFINED or value is None or isinstance(value, bool | int | float | list | dict):
        return to_string(value)
    return str(value)


def stringify(value: Any) -> str | None:
    """``JSON.stringify(value)``; ``None`` where JavaScript gives ``undefined``."""
    return json_stringify(value)


def typeof(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    return "object"  # null, lists, dicts, closures


def is_true(value: Any) -> bool:
    """SillyTavern's ``isTrueBoolean``: ``on``, ``true``, ``1`` (trimmed, any case)."""
    return isinstance(value, str) and js_trim(value).lower() in _TRUE_WORDS


def is_false(value: Any) -> bool:
    """SillyTavern's ``isFalseBoolean``: ``off``, ``false``, ``0``."""
    return isinstance(value, str) and js_trim(value).lower() in _FALSE_WORDS


def _array_index(key: Any) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key if key >= 0 else None
    if isinstance(key, float):
        return int(key) if key.is_integer() and key >= 0 else None
    if isinstance(key, str) and key.isdigit() and (key == "0" or not key.startswith("0")):
        return int(key)
    return None


def property_name(key: Any) -> str:
    """The property name JavaScript uses for ``obj[key]``."""
    if is_number(key):
        return number_to_string(key)
    return string(key)


def member(value: Any, key: Any) -> Any:
    """``value[key]``: a JSON object's or array's member, a string's character, else ``undefined``."""
    if value is None or value is UNDEFINED:
        raise JsTypeError(f"Cannot read properties of {string(value)} (reading '{property_name(key)}')")
    if isinstance(value, dict):
        return value.get(property_name(key), UNDEFINED)
    if isinstance(value, list | str):
        if property_name(key) == "length":
            return len(value)
        index = _array_index(key)
        if index is not None and index < len(value):
            return value[index]
        return UNDEFINED
    return UNDEFINED


def set_member(value: Any, key: Any, item: Any) -> None:
    """``value[key] = item`` in strict mode: a JSON object or array takes it; a primitive throws."""
    if isinstance(value, dict):
        value[property_name(key)] = item
        return
    if isinstance(value, list):
        index = _array_index(key)
        if index is None:
            return  # a named property of an array: JSON.stringify does not show it
        while len(value) <= index:
            value.append(UNDEFINED)  # a hole: printed null
        value[index] = item
        return
    raise JsTypeError(f"Cannot create property '{property_name(key)}' on {typeof(value)} '{string(value)}'")


def parse_int(value: Any) -> float:
    """``parseInt(value, 10)``."""
    text = js_trim(string(value))
    sign = -1 if text.startswith("-") else 1
    text = text[1:] if text[:1] in "+-" else text
    digits = ""
    for char in text:
        if not char.isdigit() or not char.isascii():
            break
        digits += char
    return sign * int(digits) if digits else math.nan


def parse_float(value: Any) -> float:
    """``parseFloat(value)``: the longest numeric prefix."""
    text = js_trim(string(value))
    best = math.nan
    for end in range(len(text), 0, -1):
        head = text[:end]
        if head.lstrip("+-") in ("Infinity",):
            return -math.inf if head.startswith("-") else math.inf
        if head[-1:].isdigit() or head.endswith("."):
            candidate = js_number(head)
            if not math.isnan(candidate) and not head.lower().startswith(("0x", "-0x", "+0x")):
                return candidate
    return best


def convert_type(value: Any, kind: Any) -> Any:
    """SillyTavern's ``convertValueType``: ``as=`` of ``/setvar`` and ``/var`` with ``index=``."""
    closure = value is not None and value is not UNDEFINED and not isinstance(value, str | int | float | list | dict)
    if closure or not isinstance(kind, str):  # a closure is kept as it is
        return value
    kind = js_trim(kind).lower()
    if kind in ("string", "str"):
        return string(value)
    if kind == "null":
        return None
    if kind in ("undefined", "none"):
        return UNDEFINED
    if kind == "number":
        return as_js_number(number(value))
    if kind == "int":
        return as_js_number(parse_int(value))
    if kind == "float":
        return as_js_number(parse_float(value))
    if kind in ("boolean", "bool"):
        return is_true(value)
    if kind in ("list", "array"):
        try:
            parsed = json_parse(value)
        except JsonError:
            return []
        return parsed if isinstance(parsed, list) else []
    if kind in ("object", "dict", "dictionary"):
        try:
            parsed = json_parse(value)
        except JsonError:
            return {}
        return parsed if isinstance(parsed, dict | list) or parsed is None else {}
    return value


def loose_equals(a: Any, b: Any) -> bool:
    """``a == b`` for the primitives a script compares: ``null`` and ``undefined`` only equal each
    other; two texts compare as text; otherwise as numbers."""
    nullish = (None, UNDEFINED)
    if a in nullish or b in nullish:
        return a in nullish and b in nullish
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return number(a) == number(b)


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def number_to_radix(value: float, radix: int) -> str:
    """``Number.prototype.toString(radix)`` for a double, digit for digit as V8 writes it: fraction
    digits only as far as the double's precision reaches (rounded half to even, carried back into
    earlier digits), then the integer digits."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    negative = value < 0
    value = -value if negative else value
    integer = math.floor(value)
    fraction = value - integer
    delta = max(0.5 * (math.nextafter(value, math.inf) - value), math.nextafter(0.0, 1.0))
    digits: list[int] = []
    if fraction >= delta:
        while True:
            fraction *= radix
            delta *= radix
            digit = int(fraction)
            digits.append(digit)
            fraction -= digit
            if (fraction > 0.5 or (fraction == 0.5 and digit & 1)) and fraction + delta > 1:
                # Round up, carrying back through digits that would reach the radix.
                while True:
                    if not digits:
                        integer += 1
                        break
                    last = digits.pop()
                    if last + 1 < radix:
                        digits.append(last + 1)
                        break
                break
            if fraction < delta:
                break
    head: list[str] = []
    whole = float(integer)
    while whole / radix >= 2.0**53:  # digits below the double's precision are written as zeros
        whole /= radix
        head.append("0")
    while True:
        remainder = math.fmod(whole, radix)
        head.append(_DIGITS[int(remainder)])
        whole = (whole - remainder) / radix
        if whole <= 0:
            break
    text = "".join(reversed(head))
    if digits:
        text += "." + "".join(_DIGITS[d] for d in digits)
    return ("-" if negative else "") + text


class Mulberry32:
    """The seeded ``Math.random`` the recordings ran with (mulberry32: a 32-bit state, public domain)."""

    def __init__(self, seed: int) -> None:
        self.state = seed & 0xFFFFFFFF

    def __call__(self) -> float:
        self.state = (self.state + 0x6D2B79F5) & 0xFFFFFFFF
        t = self.state
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296


def _imul(a: int, b: int) -> int:
    return (a * b) & 0xFFFFFFFF


__all__ = [
    "JsTypeError",
    "JsonError",
    "Mulberry32",
    "as_js_number",
    "convert_type",
    "is_false",
    "is_nan",
    "is_true",
    "json_parse",
    "loose_equals",
    "member",
    "number",
    "number_to_radix",
    "parse_float",
    "parse_int",
    "property_name",
    "set_member",
    "string",
    "stringify",
    "truthy",
    "typeof",
]
