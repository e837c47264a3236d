"""SillyTavern theme files (``themes/<name>.json``, its UI Themes panel): read, checked, written back.

A theme is one JSON object with a ``name`` and the look it sets — colours (``main_text_color``,
``italics_text_color``, ``underline_text_color``, ``quote_text_color``, ``blur_tint_color``,
``chat_tint_color``, ``user_mes_blur_tint_color``, ``bot_mes_blur_tint_color``, ``shadow_color``,
``border_color``), ``blur_strength``, ``shadow_width``, ``font_scale``, ``chat_width``,
``avatar_style`` (0 round, 1 rectangular, 2 square), ``chat_display`` (0 flat, 1 bubbles, 2 document),
switches (``noShadows``, ``timestamps_enabled`` …) and ``custom_css``.  Fields are written in the order
SillyTavern's ``getThemeObject`` writes them, with four spaces of indent as its server saves them;
fields we do not know are kept as they were.
"""

from __future__ import annotations

import json
from typing import Any

from peargarden.errors import FormatError

from ._common import JsonObject, parse_json_bytes

COLOR_FIELDS = (
    "main_text_color", "italics_text_color", "underline_text_color", "quote_text_color", "blur_tint_color",
    "chat_tint_color", "user_mes_blur_tint_color", "bot_mes_blur_tint_color", "shadow_color", "border_color",
)  # fmt: skip
NUMBER_FIELDS = ("blur_strength", "shadow_width", "font_scale", "chat_width", "avatar_style", "chat_display")
SWITCH_FIELDS = (
    "fast_ui_mode", "waifuMode", "noShadows", "timer_enabled", "timestamps_enabled", "timestamp_model_icon",
    "mesIDDisplay_enabled", "hideChatAvatars_enabled", "message_token_count_enabled", "expand_message_actions",
    "enableZenSliders", "enableLabMode", "hotswap_enabled", "bogus_folders", "zoomed_avatar_magnification",
    "reduced_motion", "compact_input_area",
)  # fmt: skip
# SillyTavern's getThemeObject order.
THEME_ORDER = (
    "name", "blur_strength", "main_text_color", "italics_text_color", "underline_text_color", "quote_text_color",
    "blur_tint_color", "chat_tint_color", "user_mes_blur_tint_color", "bot_mes_blur_tint_color", "shadow_color",
    "shadow_width", "border_color", "font_scale", "fast_ui_mode", "waifuMode", "avatar_style", "chat_display",
    "noShadows", "chat_width", "timer_enabled", "timestamps_enabled", "timestamp_model_icon", "mesIDDisplay_enabled",
    "hideChatAvatars_enabled", "message_token_count_enabled", "expand_message_actions", "enableZenSliders",
    "enableLabMode", "hotswap_enabled", "custom_css", "bogus_folders", "zoomed_avatar_magnification", "reduced_motion",
    "compact_input_area",
)  # fmt: skip
_KNOWN = frozenset(THEME_ORDER) - {"name"}


def _ordered(theme: JsonObject) -> JsonObject:
    """The fields in SillyTavern's order, ones it does not write after them as they came."""
    found: JsonObject = {key: theme[key] for key in THEME_ORDER if key in theme}
    found.update({key: value for key, value in theme.items() if key not in found})
    return found


def theme_from_object(obj: Any, filename: str) -> JsonObject:
    """A theme object checked: a name, at least one field of the look, each of the right kind."""
    if not isinstance(obj, dict):
        raise FormatError("主题文件应是一个 JSON 对象（not a theme object）", path=filename)
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise FormatError("主题没有名字（theme has no name）", path=filename)
    if not _KNOWN & obj.keys():
        raise FormatError("这不是酒馆的主题文件：没有颜色、模糊、字号等字段（no theme fields）", path=filename)
    for key in COLOR_FIELDS:
        if key in obj and not isinstance(obj[key], str):
            raise FormatError(f"{key} 应是颜色字符串，实际是 {obj[key]!r}", path=filename)
    for key in NUMBER_FIELDS:
        value = obj.get(key)
        if key in obj and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise FormatError(f"{key} 应是数字，实际是 {value!r}", path=filename)
    if "custom_css" in obj and not isinstance(obj["custom_css"], str):
        raise FormatError("custom_css 应是字符串", path=filename)
    return _ordered(obj)


def is_theme_object(obj: Any) -> bool:
    """Whether *obj* looks like a SillyTavern theme (a name and fields only a theme has)."""
    return isinstance(obj, dict) and isinstance(obj.get("name"), str) and len(_KNOWN & obj.keys()) >= 3


def read_theme(data: bytes, filename: str) -> JsonObject:
    return theme_from_object(parse_json_bytes(data, filename, "主题 JSON "), filename)


def theme_to_json(theme: JsonObject) -> bytes:
    """The theme as SillyTavern's server saves it (``JSON.stringify(theme, null, 4)``)."""
    return json.dumps(_ordered(theme), ensure_ascii=False, indent=4).encode("utf-8")
