"""Checks for values typed into an editor form (one readable error naming the field)."""

from __future__ import annotations

from typing import Any

from peargarden.errors import BadInput


def text_value(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadInput(f"{field} 需要文字，收到 {value!r}")
    return value


def flag_value(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadInput(f"{field} 只能是 true 或 false，收到 {value!r}")
    return value
