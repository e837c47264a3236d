"""Tell what an input file is, from its bytes (the file name only breaks ties)."""

from __future__ import annotations

import json
from typing import Literal

from peargarden.errors import FormatError

from . import _charx, _png
from ._common import check_size, decode_utf8, loads_object, refuse_other_image
from .cards import is_card_object
from .chats import is_chat_text
from .lorebooks import is_lorebook_object
from .presets import is_preset_object
from .regex_files import is_regex_script_value

Kind = Literal["card_png", "card_json", "charx", "lorebook", "preset", "chat_jsonl", "regex_script", "quick_reply_set"]


def detect_kind(data: bytes, filename: str) -> Kind:
    """What *data* is; ``FormatError`` for anything we cannot import.

    Only the shape is checked here (signature, JSON keys); the matching ``read_*`` function
    validates the content and reports damage.
    """
    check_size(data, filename)
    if not data.strip():
        raise FormatError("文件是空的（empty file）", path=filename)
    if _png.is_png(data):
        return "card_png"
    if _charx.is_zip(data):
        return "charx"
    refuse_other_image(data, filename)
    text = decode_utf8(data, filename, "文件")
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        raise FormatError("无法识别的文件：不是 PNG、CHARX 或 JSON（unrecognised file）", path=filename)
    if is_chat_text(stripped):
        return "chat_jsonl"
    if _regex_script_text(stripped):
        return "regex_script"
    obj = loads_object(stripped, filename)
    if is_lorebook_object(obj):
        return "lorebook"
    if is_card_object(obj):
        return "card_json"
    if is_preset_object(obj):
        return "preset"
    if isinstance(obj.get("qrList"), list) and isinstance(obj.get("name"), str):
        return "quick_reply_set"  # SillyTavern's Quick Reply set file
    raise FormatError(
        "无法识别的 JSON：不是角色卡、世界书、预设、正则脚本、Quick Reply 集或聊天记录"
        "（JSON is no card, lorebook, preset, regex script, Quick Reply set or chat）",
        path=filename,
    )


def _regex_script_text(text: str) -> bool:
    """A regex-script export: one script object or an array of them (cheap test on the key first)."""
    if '"findRegex"' not in text:
        return False
    try:
        return is_regex_script_value(json.loads(text))
    except (ValueError, RecursionError):
        return False
