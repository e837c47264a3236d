"""Chat Completion presets: validated on import, then kept byte for byte (never rewritten)."""

from __future__ import annotations

import msgspec

from peargarden.errors import FormatError

from ._common import JsonObject, parse_json_bytes

# Keys only a Chat Completion preset (or SillyTavern's oai_settings) has; one is enough to tell.
PRESET_KEYS = frozenset(
    {
        "prompts",
        "prompt_order",
        "openai_max_context",
        "openai_max_tokens",
        "chat_completion_source",
        "temp_openai",
        "new_chat_prompt",
        "impersonation_prompt",
        "wi_format",
        "scenario_format",
        "personality_format",
        "continue_nudge_prompt",
        "squash_system_messages",
        "names_behavior",
        "stream_openai",
        "main_prompt",
        "jailbreak_prompt",
    }
)


class PresetFile(msgspec.Struct, frozen=True):
    """A preset as parsed (``data``) and as received (``raw``: the bytes to store unchanged)."""

    data: JsonObject
    raw: bytes


def is_preset_object(obj: JsonObject) -> bool:
    return "entries" not in obj and "spec" not in obj and any(k in obj for k in PRESET_KEYS)


def read_preset(data: bytes, filename: str) -> JsonObject:
    """The parsed preset; ``FormatError`` unless it is a JSON object with preset keys."""
    obj = parse_json_bytes(data, filename, "预设 JSON ")
    if not is_preset_object(obj):
        raise FormatError("这个 JSON 不是对话补全预设（JSON is not a Chat Completion preset）", path=filename)
    for key in ("prompts", "prompt_order"):
        if key in obj and not isinstance(obj[key], list):
            raise FormatError(f"预设的 {key} 不是列表（preset '{key}' must be a list）", path=filename)
    for index, prompt in enumerate(obj.get("prompts", [])):
        if not isinstance(prompt, dict) or not isinstance(prompt.get("identifier"), str):
            raise FormatError(
                f"预设的第 {index + 1} 个提示词缺少 identifier（prompt without identifier）", path=filename
            )
    return obj


def load_preset(data: bytes, filename: str) -> PresetFile:
    """Validate and return both views; store ``raw`` to keep the preset verbatim on disk."""
    return PresetFile(read_preset(data, filename), bytes(data))
