"""Everything one SillyTavern-style generation reads and writes, as plain values.

``TavernState`` holds the effective settings (``oai_settings`` with internal key names,
``power_user``, ``extension_settings``, world-info settings), the character (ST's stored shape:
top-level fields plus ``data``), the chat (ST message dicts) and its ``chat_metadata``, the
lorebooks by name, and the extension-prompt table that persists between generations.  Clock,
randomness and the token counter are injected; without an injected ``random`` a state rolls live
(unseeded) numbers, as SillyTavern does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from peargarden.text.rolls import live_random
from peargarden.text.tokens import TextCounter
from peargarden.worldinfo.sources import LorebookCache

from .defaults import (
    DEFAULT_NOTE_SETTINGS,
    DEFAULT_OAI,
    DEFAULT_POWER_USER,
    DEFAULT_WORLD_INFO_SETTINGS,
    PRESET_RENAMES,
)
from .group import Cast
from .injections import ExtensionTable
from .version import V112, V118, StCompat, normalize_version


def deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Objects merged key by key; arrays and scalars replaced (how the oracle built settings.json)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def preset_to_oai(preset: Mapping[str, Any]) -> dict[str, Any]:
    """A Chat Completion preset file → ``oai_settings`` keys (sampler names renamed)."""
    return {PRESET_RENAMES.get(k, k): copy.deepcopy(v) for k, v in preset.items()}


# The preset keys ST applies when a preset is selected (``onSettingsPresetChange``, 1.12.6).
PRESET_KEYS = frozenset(
    [
        "chat_completion_source",
        "temperature",
        "frequency_penalty",
        "presence_penalty",
        "top_p",
        "top_k",
        "top_a",
        "min_p",
        "repetition_penalty",
        "max_context_unlocked",
        "openai_model",
        "claude_model",
        "windowai_model",
        "openrouter_model",
        "openrouter_use_fallback",
        "openrouter_force_instruct",
        "openrouter_group_models",
        "openrouter_sort_models",
        "openrouter_providers",
        "openrouter_allow_fallbacks",
        "ai21_model",
        "mistralai_model",
        "cohere_model",
        "perplexity_model",
        "groq_model",
        "zerooneai_model",
        "blockentropy_model",
        "custom_model",
        "custom_url",
        "custom_include_body",
        "custom_exclude_body",
        "custom_include_headers",
        "custom_prompt_post_processing",
        "google_model",
        "openai_max_context",
        "openai_max_tokens",
        "wrap_in_quotes",
        "names_behavior",
        "send_if_empty",
        "impersonation_prompt",
        "new_chat_prompt",
        "new_group_chat_prompt",
        "new_example_chat_prompt",
        "continue_nudge_prompt",
        "bias_preset_selected",
        "reverse_proxy",
        "wi_format",
        "scenario_format",
        "personality_format",
        "group_nudge_prompt",
        "stream_openai",
        "websearch_cohere",
        "prompts",
        "prompt_order",
        "api_url_scale",
        "show_external_models",
        "proxy_password",
        "assistant_prefill",
        "assistant_impersonation",
        "human_sysprompt_message",
        "claude_use_sysprompt",
        "use_makersuite_sysprompt",
        "use_alt_scale",
        "squash_system_messages",
        "image_inlining",
        "inline_image_quality",
        "continue_prefill",
        "continue_postfix",
        "function_calling",
        "seed",
        "n",
    ]
)


# Keys 1.18 also applies from a preset (``wrap_in_quotes`` is gone there).
PRESET_KEYS_118 = (PRESET_KEYS - {"wrap_in_quotes", "image_inlining"}) | {
    "extensions",
    "use_sysprompt",
    "media_inlining",
    "show_thoughts",
    "reasoning_effort",
    "verbosity",
    "enable_web_search",
    "request_images",
}


def apply_preset(
    oai: Mapping[str, Any], preset: Mapping[str, Any], *, version: str = V112, name: str | None = None
) -> dict[str, Any]:
    """Selecting a preset: each known key the preset has replaces the current value; others stay.

    Includes ST's two load-time migrations (``names_in_completion`` → names behavior "completion",
    and the impersonation prefill inheriting the assistant prefill).  ``name`` is remembered as
    ``preset_settings_openai`` (1.18 allows a preset's own regex scripts by that name).
    """
    keys = PRESET_KEYS_118 if normalize_version(version) == V118 else PRESET_KEYS
    preset = dict(preset)
    if preset.get("names_in_completion") is True and "names_behavior" not in preset:
        preset["names_behavior"] = 1
    if "assistant_prefill" in preset and "assistant_impersonation" not in preset:
        preset["assistant_impersonation"] = preset["assistant_prefill"]
    out = copy.deepcopy(dict(oai))
    for key, value in preset.items():
        if key in keys and value is not None:
            out[PRESET_RENAMES.get(key, key)] = copy.deepcopy(value)
    if name is not None:
        out["preset_settings_openai"] = name
    return out


# What a fresh 1.18.0 install changes in the settings assembly reads (its settings.json and the
# code defaults of openai.js for keys that file lacks).
_OAI_118: dict[str, Any] = {
    "scenario_format": "{{scenario}}",
    "personality_format": "{{personality}}",
    "continue_nudge_prompt": "[Continue your last message without repeating its original content.]",
    "impersonation_prompt": (
        "[Write your next reply from the point of view of {{user}}, using the chat history so far as a "
        "guideline for the writing style of {{user}}. Write 1 reply only in internet RP style. Don't write "
        "as {{char}} or system. Don't describe actions of {{char}}.]"
    ),
    "stream_openai": True,
}
_POWER_USER_118: dict[str, Any] = {"experimental_macro_engine": True}


def effective_settings(st_settings: Mapping[str, Any], version: str = V112) -> dict[str, Any]:
    """ST's settings.json with the fresh-install defaults of ``version`` filled in for assembly."""
    new = normalize_version(version) == V118
    oai = copy.deepcopy(DEFAULT_OAI)
    power_user = copy.deepcopy(DEFAULT_POWER_USER)
    if new:
        oai.pop("wrap_in_quotes", None)
        oai.update(copy.deepcopy(_OAI_118))
        power_user.update(_POWER_USER_118)
    base: dict[str, Any] = {
        "username": "User",
        "user_avatar": "user-default.png",
        "oai_settings": oai,
        "power_user": power_user,
        "world_info_settings": copy.deepcopy(DEFAULT_WORLD_INFO_SETTINGS),
        "extension_settings": {
            "note": copy.deepcopy(DEFAULT_NOTE_SETTINGS),
            "regex": [],
            "character_allowed_regex": [],
            "variables": {"global": {}},
            "disabledExtensions": [],
            **({"preset_allowed_regex": {}} if new else {}),
        },
    }
    merged = deep_merge(base, st_settings)
    if "prompts" in st_settings.get("oai_settings", {}):
        merged["oai_settings"]["prompts"] = copy.deepcopy(st_settings["oai_settings"]["prompts"])
    return merged


def _fixed_clock() -> datetime:
    return datetime(2024, 9, 28, 12, 0, tzinfo=UTC)


@dataclass
class TavernState:
    oai: dict[str, Any]
    power_user: dict[str, Any]
    extension_settings: dict[str, Any]
    wi_settings: dict[str, Any]
    user_name: str
    card: dict[str, Any]
    avatar: str
    chat: list[dict[str, Any]] = field(default_factory=list)
    chat_metadata: dict[str, Any] = field(default_factory=dict)
    worlds: dict[str, dict[str, Any]] = field(default_factory=dict)
    table: ExtensionTable = field(default_factory=ExtensionTable)
    counter: TextCounter | None = None
    clock: Callable[[], datetime] = _fixed_clock
    random: Callable[[], float] = field(default_factory=live_random)
    chat_id_hash: int = 0
    user_avatar: str = "user-default.png"
    compat: StCompat = field(default_factory=StCompat)  # which SillyTavern release to match
    # A group chat: its members and settings; ``card`` / ``avatar`` are then the member speaking.
    cast: Cast | None = None
    # Caches that live as long as the session: parsed books (by identity of their JSON; pass one
    # ``LorebookCache`` to every state of a session to keep them across rebuilt states), the
    # sorted entry list, and prompt-time regex results of static scripts.  Replace a book's dict
    # to invalidate it.
    lorebooks: LorebookCache = field(default_factory=LorebookCache, repr=False)
    book_cache: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False)
    regex_cache: dict[Any, dict[str, str]] = field(default_factory=dict, repr=False)
    script_ids: dict[Any, int] = field(default_factory=dict, repr=False)

    @property
    def char_name(self) -> str:
        return str(self.card.get("name") or self.card_data.get("name") or "")

    @property
    def card_data(self) -> dict[str, Any]:
        data = self.card.get("data")
        return data if isinstance(data, dict) else {}

    def card_field(self, key: str, data_key: str | None = None) -> Any:
        """ST's character object: top-level V1 fields, ``data`` for V2-only ones."""
        if key in self.card and data_key is None:
            return self.card.get(key)
        return self.card_data.get(data_key or key)

    @property
    def card_extensions(self) -> dict[str, Any]:
        ext = self.card_data.get("extensions")
        return ext if isinstance(ext, dict) else {}

    @property
    def note_settings(self) -> dict[str, Any]:
        note = self.extension_settings.get("note")
        return note if isinstance(note, dict) else {}

    def fill_note_metadata(self) -> None:
        """Chat load: missing Author's Note fields come from the extension's defaults."""
        note = self.note_settings
        md = self.chat_metadata
        defaults = {
            "note_prompt": note.get("default"),
            "note_interval": note.get("defaultInterval"),
            "note_position": note.get("defaultPosition"),
            "note_depth": note.get("defaultDepth"),
            "note_role": note.get("defaultRole"),
        }
        hard = {"note_prompt": "", "note_interval": 1, "note_position": 1, "note_depth": 4, "note_role": 0}
        for key, value in defaults.items():
            if md.get(key) is None:
                md[key] = value if value is not None else hard[key]
