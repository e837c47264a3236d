"""Reading ``world_info_*`` settings from SillyTavern's settings.json."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .types import Strategy, WorldInfoSettings


def _number(data: Mapping[str, Any], name: str, default: float) -> float:
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


def _flag(data: Mapping[str, Any], name: str, default: bool) -> bool:
    value = data.get(name)
    return bool(value) if value is not None else default


def settings_from_st(data: Mapping[str, Any]) -> WorldInfoSettings:
    """``world_info_settings`` (or a whole settings.json) → :class:`WorldInfoSettings`.

    Values SillyTavern would reject on load are reset the same way it does (budget > 100 ⇒ 25).
    """
    source = data.get("world_info_settings", data)
    if not isinstance(source, Mapping):
        source = {}
    budget = _number(source, "world_info_budget", 25)
    if budget > 100:
        budget = 25
    strategy = int(_number(source, "world_info_character_strategy", 1))
    if strategy not in (0, 1, 2):
        strategy = 0  # SillyTavern falls back to "evenly" for unknown strategies
    return WorldInfoSettings(
        depth=int(_number(source, "world_info_depth", 2)),
        budget_percent=budget,
        budget_cap=int(_number(source, "world_info_budget_cap", 0)),
        include_names=_flag(source, "world_info_include_names", True),
        recursive=_flag(source, "world_info_recursive", False),
        case_sensitive=_flag(source, "world_info_case_sensitive", False),
        match_whole_words=_flag(source, "world_info_match_whole_words", False),
        min_activations=int(_number(source, "world_info_min_activations", 0)),
        min_activations_depth_max=int(_number(source, "world_info_min_activations_depth_max", 0)),
        max_recursion_steps=int(_number(source, "world_info_max_recursion_steps", 0)),
        use_group_scoring=_flag(source, "world_info_use_group_scoring", False),
        overflow_alert=_flag(source, "world_info_overflow_alert", False),
        character_strategy=Strategy(strategy),
    )
