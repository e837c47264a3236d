"""SillyTavern 1.12.6 constants and built-in defaults used by Chat Completion assembly."""

from __future__ import annotations

from typing import Any

# extension_prompt_types
NONE = -1
IN_PROMPT = 0
IN_CHAT = 1
BEFORE_PROMPT = 2

# extension_prompt_roles
ROLE_SYSTEM = 0
ROLE_USER = 1
ROLE_ASSISTANT = 2
ROLE_NAMES = {ROLE_SYSTEM: "system", ROLE_USER: "user", ROLE_ASSISTANT: "assistant"}
ROLE_IDS = {name: number for number, name in ROLE_NAMES.items()}

MAX_INJECTION_DEPTH = 1000  # 1.12.6 (10000 in later versions)

# persona_description_positions
PERSONA_IN_PROMPT = 0
PERSONA_AFTER_CHAR = 1
PERSONA_TOP_AN = 2
PERSONA_BOTTOM_AN = 3
PERSONA_AT_DEPTH = 4
PERSONA_NONE = 9

# character_names_behavior
NAMES_NONE = -1
NAMES_DEFAULT = 0
NAMES_COMPLETION = 1
NAMES_CONTENT = 2

GLOBAL_ORDER_ID = 100001  # the Chat Completion "global" prompt-order list

NOTE_KEY = "2_floating_prompt"
DEPTH_PROMPT_KEY = "DEPTH_PROMPT"
PERSONA_KEY = "PERSONA_DESCRIPTION"
QUIET_KEY = "QUIET_PROMPT"
SCRIPT_INJECT_PREFIX = "script_inject_"

DEFAULT_MAIN = "Write {{char}}'s next reply in a fictional chat between {{charIfNotGroup}} and {{user}}."
DEFAULT_ENHANCE = (
    "If you have more knowledge of {{char}}, add to the character's lore and personality to enhance them "
    "but keep the Character Sheet's definitions absolute."
)

DEFAULT_PROMPTS: list[dict[str, Any]] = [
    {
        "name": "Main Prompt",
        "system_prompt": True,
        "role": "system",
        "content": DEFAULT_MAIN,
        "identifier": "main",
    },
    {
        "name": "Auxiliary Prompt",
        "system_prompt": True,
        "role": "system",
        "content": "",
        "identifier": "nsfw",
    },
    {"identifier": "dialogueExamples", "name": "Chat Examples", "system_prompt": True, "marker": True},
    {
        "name": "Post-History Instructions",
        "system_prompt": True,
        "role": "system",
        "content": "",
        "identifier": "jailbreak",
    },
    {"identifier": "chatHistory", "name": "Chat History", "system_prompt": True, "marker": True},
    {"identifier": "worldInfoAfter", "name": "World Info (after)", "system_prompt": True, "marker": True},
    {"identifier": "worldInfoBefore", "name": "World Info (before)", "system_prompt": True, "marker": True},
    {
        "identifier": "enhanceDefinitions",
        "role": "system",
        "name": "Enhance Definitions",
        "content": DEFAULT_ENHANCE,
        "system_prompt": True,
        "marker": False,
    },
    {"identifier": "charDescription", "name": "Char Description", "system_prompt": True, "marker": True},
    {"identifier": "charPersonality", "name": "Char Personality", "system_prompt": True, "marker": True},
    {"identifier": "scenario", "name": "Scenario", "system_prompt": True, "marker": True},
    {
        "identifier": "personaDescription",
        "name": "Persona Description",
        "system_prompt": True,
        "marker": True,
    },
]

DEFAULT_ORDER: list[dict[str, Any]] = [
    {"identifier": "main", "enabled": True},
    {"identifier": "worldInfoBefore", "enabled": True},
    {"identifier": "personaDescription", "enabled": True},
    {"identifier": "charDescription", "enabled": True},
    {"identifier": "charPersonality", "enabled": True},
    {"identifier": "scenario", "enabled": True},
    {"identifier": "enhanceDefinitions", "enabled": False},
    {"identifier": "nsfw", "enabled": True},
    {"identifier": "worldInfoAfter", "enabled": True},
    {"identifier": "dialogueExamples", "enabled": True},
    {"identifier": "chatHistory", "enabled": True},
    {"identifier": "jailbreak", "enabled": True},
]

# oai_settings defaults of 1.12.6 (openai.js default_settings / shipped Default.json), internal names.
DEFAULT_OAI: dict[str, Any] = {
    "chat_completion_source": "openai",
    "openai_model": "gpt-4-turbo",
    "custom_model": "",
    "custom_url": "",
    "custom_include_body": "",
    "custom_exclude_body": "",
    "custom_include_headers": "",
    "custom_prompt_post_processing": "",
    "temp_openai": 1.0,
    "freq_pen_openai": 0,
    "pres_pen_openai": 0,
    "top_p_openai": 1.0,
    "top_k_openai": 0,
    "top_a_openai": 0,
    "min_p_openai": 0,
    "repetition_penalty_openai": 1,
    "stream_openai": False,
    "openai_max_context": 4095,
    "openai_max_tokens": 300,
    "wrap_in_quotes": False,
    "names_behavior": NAMES_DEFAULT,
    "send_if_empty": "",
    "impersonation_prompt": (
        "[Write your next reply from the point of view of {{user}}, using the chat history so far as a "
        "guideline for the writing style of {{user}}. Don't write as {{char}} or system. Don't describe "
        "actions of {{char}}.]"
    ),
    "new_chat_prompt": "[Start a new Chat]",
    "new_group_chat_prompt": "[Start a new group chat. Group members: {{group}}]",
    "new_example_chat_prompt": "[Example Chat]",
    "continue_nudge_prompt": (
        "[Continue the following message. Do not include ANY parts of the original message. Use "
        "capitalization and punctuation as if your reply is a part of the original message: "
        "{{lastChatMessage}}]"
    ),
    "group_nudge_prompt": "[Write the next reply only as {{char}}.]",
    "bias_preset_selected": "Default (none)",
    "bias_presets": {"Default (none)": []},
    "wi_format": "{0}",
    "scenario_format": "[Circumstances and context of the dialogue: {{scenario}}]",
    "personality_format": "[{{char}}'s personality: {{personality}}]",
    "assistant_prefill": "",
    "assistant_impersonation": "",
    "squash_system_messages": False,
    "continue_prefill": False,
    "continue_postfix": " ",
    "seed": -1,
    "n": 1,
    "prompts": DEFAULT_PROMPTS,
    "prompt_order": [{"character_id": GLOBAL_ORDER_ID, "order": DEFAULT_ORDER}],
}

# Preset file key -> oai_settings key (only the samplers are renamed).
PRESET_RENAMES = {
    "temperature": "temp_openai",
    "frequency_penalty": "freq_pen_openai",
    "presence_penalty": "pres_pen_openai",
    "top_p": "top_p_openai",
    "top_k": "top_k_openai",
    "top_a": "top_a_openai",
    "min_p": "min_p_openai",
    "repetition_penalty": "repetition_penalty_openai",
}

DEFAULT_POWER_USER: dict[str, Any] = {
    "pin_examples": False,
    "strip_examples": False,
    "trim_spaces": True,
    "collapse_newlines": False,
    "prefer_character_prompt": True,
    "prefer_character_jailbreak": True,
    "user_prompt_bias": "",
    "persona_description": "",
    "persona_description_position": PERSONA_IN_PROMPT,
    "persona_description_depth": 2,
    "persona_description_role": ROLE_SYSTEM,
    "sysprompt": {
        "enabled": True,
        "name": "Neutral - Chat",
        "content": "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}.",
    },
    "context": {"chat_start": "***", "example_separator": "***"},
}

DEFAULT_WORLD_INFO_SETTINGS: dict[str, Any] = {
    "world_info": {"globalSelect": []},
    "world_info_depth": 2,
    "world_info_budget": 25,
    "world_info_include_names": True,
    "world_info_recursive": True,
    "world_info_overflow_alert": False,
    "world_info_case_sensitive": False,
    "world_info_match_whole_words": True,
    "world_info_character_strategy": 1,
    "world_info_budget_cap": 0,
    "world_info_min_activations": 0,
    "world_info_min_activations_depth_max": 0,
    "world_info_max_recursion_steps": 0,
    "world_info_use_group_scoring": False,
}

DEFAULT_NOTE_SETTINGS: dict[str, Any] = {
    "default": "",
    "chara": [],
    "wiAddition": [],
    "allowWIScan": False,
    "defaultInterval": 1,
    "defaultDepth": 4,
    "defaultPosition": IN_CHAT,
    "defaultRole": ROLE_SYSTEM,
}
