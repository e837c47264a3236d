"""JavaScript number/string coercions that SillyTavern's macro code relies on."""

from __future__ import annotations

import math
import re

_JS_NUMERIC = re.compile(
    r"^\s*(?:[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)?\s*$"
)


def js_number(value: object) -> float:
    """``Number(value)`` for strings, numbers, booleans and ``None`` (NaN when not numeric)."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    text = str(value)
    if not _JS_NUMERIC.match(text):
        return math.nan
    stripped = text.strip()
    if not stripped:
        return 0.0
    lowered = stripped.lower()
    if lowered[:2] in ("0x", "0o", "0b"):
        return float(int(stripped, 0))
    if stripped.lstrip("+-") == "Infinity":
        return -math.inf if stripped.startswith("-") else math.inf
    return float(stripped)


def js_str(value: object) -> str:
    """``String(value)`` for the values variables can hold."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


def is_nan(value: float) -> bool:
    return math.isnan(value)
