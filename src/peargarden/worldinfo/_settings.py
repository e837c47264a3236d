"""Reading ``world_info_*`` values from SillyTavern's settings.json as SillyTavern coerces them
(used by :meth:`peargarden.worldinfo.types.WorldInfoSettings.from_st`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def number(data: Mapping[str, Any], name: str, default: float) -> float:
    value = data.get(name)
    if isinstance(value, bool) or value is None:
        return default
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return default
    return default


def flag(data: Mapping[str, Any], name: str, default: bool) -> bool:
    value = data.get(name)
    return bool(value) if value is not None else default
