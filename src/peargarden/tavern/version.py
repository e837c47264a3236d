"""Which SillyTavern release tavern assembly matches, as named switches of one engine.

SillyTavern changed its Chat Completion assembly between 1.12.6 (the first oracle) and 1.18.0
(the second).  Rather than two engines, every difference that changes a request is one named
boolean here; the steps read the switch, never the version string.  ``for_version`` gives the
set of each release; a caller may still flip single switches (``dataclasses.replace``).

The macro engine is the one switch a user controls inside SillyTavern itself
(``power_user.experimental_macro_engine``): 1.18 fresh installs have it on, so it defaults to on
for 1.18 and is read from the settings when they name it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.errors import BadInput

V112 = "1.12"
V118 = "1.18"
VERSIONS = (V112, V118)
DEFAULT_VERSION = V118  # what users run now; new data folders get it


class StCompat(msgspec.Struct, frozen=True):
    """One switch per SillyTavern 1.12.6 → 1.18.0 difference that changes the request."""

    version: str = V112
    # Macros: the 1.17+ parser-based engine instead of the fixed regex pipeline.
    new_macro_engine: bool = False
    legacy_macros_118: bool = False  # when the legacy pipeline runs: 1.18's variant of it
    # Request body: ``logit_bias: {}`` left out when empty; ``name`` after ``content``.
    omit_empty_logit_bias: bool = False
    name_after_content: bool = False
    # Prompt Manager.
    injection_order: bool = False  # in-chat prompts grouped by ``injection_order``
    injection_trigger: bool = False  # prompts limited to generation types
    empty_format_keeps_text: bool = False  # empty scenario/personality format ⇒ raw field
    bias_role_assistant: bool = False
    card_override_needs_enabled: bool = False  # card system prompt / PHI only when the slot is on
    wrap_in_quotes: bool = True  # the 1.12 option (removed later)
    continue_nudge_after_slots: bool = False  # continued message + nudge after every slot
    examples_whole_blocks: bool = False  # example dialogues all-or-nothing per block
    max_injection_depth: int = 1000
    # Regex scripts.
    plain_regex_at_prompt: bool = True  # scripts marked neither prompt- nor display-only
    regex_min_depth_minus_one: bool = False
    preset_regex_scripts: bool = False
    # World info.
    persona_after_world_info: bool = False
    wi_entry_triggers: bool = False
    wi_match_sources: bool = False
    wi_ignore_budget: bool = False  # an over-budget entry is skipped, ignoreBudget ones go on
    wi_outlets: bool = False
    wi_persona_lorebook: bool = False  # ``power_user.persona_description_lorebook`` is scanned
    chat_overrides_examples_and_system: bool = False  # chat_metadata.mes_example / system_prompt
    wi_depth_key_underscore: bool = False  # ``customDepthWI_<d>_<r>`` instead of ``-``
    embedded_book_editor_resave: bool = True  # 1.12 "Import Card Lore" forced selective on
    # Group chats (JOIN modes and example dialogues).
    group_join_raw_affixes: bool = False  # join prefix/suffix as typed, glued to the value
    group_join_example_start: bool = False  # ``<START>`` added to a member's examples lacking it
    group_scenario_override_macros: bool = False  # the chat's scenario override expanded per field
    group_example_member_names: bool = False  # example lines of any member are the bot's


_V112 = StCompat()
_V118 = StCompat(
    version=V118,
    new_macro_engine=True,
    legacy_macros_118=True,
    omit_empty_logit_bias=True,
    name_after_content=True,
    injection_order=True,
    injection_trigger=True,
    empty_format_keeps_text=True,
    bias_role_assistant=True,
    card_override_needs_enabled=True,
    wrap_in_quotes=False,
    continue_nudge_after_slots=True,
    examples_whole_blocks=True,
    max_injection_depth=10000,
    plain_regex_at_prompt=False,
    regex_min_depth_minus_one=True,
    preset_regex_scripts=True,
    persona_after_world_info=True,
    wi_entry_triggers=True,
    wi_match_sources=True,
    wi_ignore_budget=True,
    wi_outlets=True,
    wi_persona_lorebook=True,
    chat_overrides_examples_and_system=True,
    wi_depth_key_underscore=True,
    embedded_book_editor_resave=False,
    group_join_raw_affixes=True,
    group_join_example_start=True,
    group_scenario_override_macros=True,
    group_example_member_names=True,
)


def normalize_version(value: object, *, source: str = "") -> str:
    """``"1.18"``, ``"1.18.0"``, ``1.18`` … → ``"1.18"``; anything else is a clear error."""
    text = str(value).strip() if value is not None else ""
    for version in VERSIONS:
        if text == version or text.startswith(version + "."):
            return version
    where = f"{source}: " if source else ""
    raise BadInput(f"{where}不支持的 SillyTavern 版本 {text!r}（可选 1.12 或 1.18）")


def for_version(version: str, power_user: Mapping[str, Any] | None = None) -> StCompat:
    """The switches of ``version``; ``power_user.experimental_macro_engine`` picks the macro engine."""
    base = _V118 if normalize_version(version) == V118 else _V112
    flag = (power_user or {}).get("experimental_macro_engine")
    if base.version == V118 and isinstance(flag, bool):
        return replace(base, new_macro_engine=flag)
    return base


def case_version(settings: Mapping[str, Any]) -> str:
    """The version an oracle case's ``settings.json`` names (``sillytavern.version``); 1.12 if none."""
    st = settings.get("sillytavern")
    value = st.get("version") if isinstance(st, Mapping) else settings.get("st_version")
    return normalize_version(value, source="settings.json") if value else V112
