"""Edits of a SillyTavern Chat Completion preset: prompt texts, the prompt order, the samplers.

Pure: each function returns a new preset and leaves its argument alone.  Only what is named changes;
every other key of the preset (newer SillyTavern fields such as ``injection_trigger``, extensions) is
kept, and prompts keep their place in ``prompts``.  The order edited is the global one
(``prompt_order`` entry with ``character_id`` :data:`GLOBAL_ORDER_ID`), the one SillyTavern uses for
Chat Completion.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from peargarden.errors import BadInput, NotFound

from .defaults import DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID

Ranges = Mapping[str, tuple[float, float, bool]]

# Preset key → (lowest, highest, integer?) as SillyTavern's sliders allow them.
SAMPLERS: dict[str, tuple[float, float, bool]] = {
    "temperature": (0, 2, False),
    "top_p": (0, 1, False),
    "top_k": (0, 500, True),
    "min_p": (0, 1, False),
    "top_a": (0, 1, False),
    "frequency_penalty": (-2, 2, False),
    "presence_penalty": (-2, 2, False),
    "repetition_penalty": (1, 2, False),
    "openai_max_tokens": (1, 1_000_000, True),
    "openai_max_context": (1, 10_000_000, True),
    "seed": (-1, 2**53, True),
}
_PROMPT_FIELDS = {"content": str, "name": str, "role": str}
_ROLES = ("system", "user", "assistant")


def prompts(preset: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The preset's prompts (SillyTavern's defaults for those it does not list)."""
    listed = [p for p in preset.get("prompts") or [] if isinstance(p, dict) and p.get("identifier")]
    known = {p["identifier"] for p in listed}
    return listed + [copy.deepcopy(p) for p in DEFAULT_PROMPTS if p["identifier"] not in known]


def global_order(preset: Mapping[str, Any]) -> list[dict[str, Any]]:
    for item in preset.get("prompt_order") or []:
        if isinstance(item, dict) and str(item.get("character_id")) == str(GLOBAL_ORDER_ID):
            order = item.get("order")
            if isinstance(order, list):
                return [e for e in order if isinstance(e, dict)]
    return copy.deepcopy(DEFAULT_ORDER)


def set_prompt(preset: Mapping[str, Any], identifier: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The preset with one prompt's ``content`` / ``name`` / ``role`` changed (a built-in prompt the
    preset does not list yet is added to ``prompts``, as SillyTavern does when you edit it)."""
    for field, value in changes.items():
        if field not in _PROMPT_FIELDS or not isinstance(value, str):
            raise BadInput(f"提示词只能改 content、name、role（文字），收到 {field}={value!r}")
        if field == "role" and value not in _ROLES:
            raise BadInput(f"role 只能是 {' / '.join(_ROLES)}，收到 {value!r}")
    out = copy.deepcopy(dict(preset))
    listed = out.setdefault("prompts", [])
    if not isinstance(listed, list):
        raise BadInput("预设的 prompts 不是列表，无法编辑")
    target = next((p for p in listed if isinstance(p, dict) and p.get("identifier") == identifier), None)
    if target is None:
        default = next((p for p in DEFAULT_PROMPTS if p["identifier"] == identifier), None)
        if default is None:
            raise NotFound(f"预设里没有提示词 {identifier!r}（no such prompt）")
        target = copy.deepcopy(default)
        listed.append(target)
    target.update(changes)
    return out


def set_order(preset: Mapping[str, Any], order: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The preset with the global prompt order replaced by *order* (``[{"identifier", "enabled"}]``);
    every identifier must name a prompt of the preset, and each may appear once."""
    known = {p["identifier"] for p in prompts(preset)}
    seen: set[str] = set()
    items = []
    for item in order:
        identifier, enabled = item.get("identifier"), item.get("enabled", True)
        if not isinstance(identifier, str) or identifier not in known or identifier in seen:
            raise BadInput(f"提示词顺序里有未知或重复的条目：{identifier!r}")
        if not isinstance(enabled, bool):
            raise BadInput(f"enabled 只能是 true 或 false，收到 {enabled!r}")
        seen.add(identifier)
        items.append({"identifier": identifier, "enabled": enabled})
    out = copy.deepcopy(dict(preset))
    orders = out.get("prompt_order")
    if not isinstance(orders, list):
        orders = out["prompt_order"] = []
    for entry in orders:
        if isinstance(entry, dict) and str(entry.get("character_id")) == str(GLOBAL_ORDER_ID):
            entry["order"] = items
            return out
    orders.append({"character_id": GLOBAL_ORDER_ID, "order": items})
    return out


# The same for a connection's ``[providers.<name>.sampler]`` (request body names).
CONNECTION_SAMPLERS: dict[str, tuple[float, float, bool]] = {
    **{k: v for k, v in SAMPLERS.items() if k not in ("top_a", "openai_max_tokens", "openai_max_context")},
    "max_tokens": SAMPLERS["openai_max_tokens"],
}


def checked_samplers(values: Mapping[str, Any], names: Ranges = SAMPLERS) -> dict[str, Any]:
    """*values* checked against the sliders' ranges (``None`` = take the key out)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in names:
            raise BadInput(f"没有这个采样参数：{key}（可用：{', '.join(names)}）")
        if value is None:
            out[key] = None
            continue
        low, high, integer = names[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise BadInput(f"{key} 需要一个数字，收到 {value!r}")
        if integer and not float(value).is_integer():
            raise BadInput(f"{key} 需要整数，收到 {value!r}")
        if not low <= value <= high:
            raise BadInput(f"{key} 应在 {low}–{high} 之间，收到 {value!r}")
        out[key] = int(value) if float(value).is_integer() else value
    return out


def set_samplers(preset: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """The preset with its sampler keys set (``None`` removes a key)."""
    out = copy.deepcopy(dict(preset))
    for key, value in checked_samplers(values).items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out
