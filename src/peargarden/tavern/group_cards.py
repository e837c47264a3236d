"""A group's card fields and depth prompts for one speaker (``getGroupCharacterCards``,
``getGroupDepthPrompts``).

In the JOIN modes every request carries the description, personality, scenario and example
dialogues of all members (muted ones only in "join, include muted", and always the speaker's),
each wrapped in the group's join prefix and suffix, with ``<FIELDNAME>`` the field's label and
``{{char}}`` that member.  SWAP mode returns nothing: the speaker's own card is used.

Pure: the macro expansion is passed in (``expand(text, member_name)`` is ST's ``baseChatReplace``
with that member as ``{{char}}``; ``expand_speaker`` the same for whoever speaks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from peargarden.text.jsstring import js_trim

from .group import Cast, GenerationMode, card_name
from .version import StCompat

_FIELDNAME = re.compile("<FIELDNAME>", re.IGNORECASE)
_LABELS = {
    "description": "Description",
    "personality": "Personality",
    "scenario": "Scenario",
    "mes_example": "Example Messages",
}


def _card_text(card: Mapping[str, Any], key: str) -> str:
    """The character object's field (top-level V1 field, else ``data``)."""
    if key in card:
        value = card.get(key)
    else:
        data = card.get("data")
        value = data.get(key) if isinstance(data, Mapping) else None
    return value if isinstance(value, str) else ""


class _Joiner(msgspec.Struct, frozen=True):
    cast: Cast
    speaker: str  # avatar of the member speaking
    expand: Callable[[str, str], str]
    compat: StCompat
    wrap: bool  # 1.12: ``power_user.instruct.wrap`` puts a newline between prefix, value and suffix

    def _affix(self, text: str, label: str, name: str) -> str:
        if not text:
            return ""
        text = _FIELDNAME.sub(lambda _m: label, text)
        if not self.compat.group_join_raw_affixes:
            text = js_trim(text)  # 1.12 trimmed the prefix and suffix too
        return self.expand(text, name)

    def _part(self, raw: str, label: str, name: str, start: bool) -> str:
        value = js_trim(raw)
        if not value:
            return ""
        if start and not value.startswith("<START>"):
            value = "<START>\n" + value
        prefix = self._affix(self.cast.group.join_prefix, label, name)
        suffix = self._affix(self.cast.group.join_suffix, label, name)
        value = self.expand(js_trim(_FIELDNAME.sub(lambda _m: label, value)), name)
        if self.compat.group_join_raw_affixes:
            return f"{prefix}{value}{suffix}"
        sep = "\n" if self.wrap else ""
        return f"{prefix + sep if prefix else ''}{value}{sep + suffix if suffix else ''}"

    def field(self, key: str) -> str:
        group = self.cast.group
        label = _LABELS[key]
        start = key == "mes_example" and self.compat.group_join_example_start
        parts = []
        for member in group.members:
            card = self.cast.card(member)
            if card is None:
                continue
            if group.is_muted(member) and member != self.speaker and group.mode != GenerationMode.APPEND_DISABLED:
                continue
            parts.append(self._part(_card_text(card, key), label, card_name(card), start))
        return "\n".join(p for p in parts if p)


def joined_fields(
    cast: Cast,
    speaker: str,
    *,
    expand: Callable[[str, str], str],
    expand_speaker: Callable[[str], str],
    chat_metadata: Mapping[str, Any],
    compat: StCompat,
    instruct_wrap: bool = True,
) -> dict[str, str] | None:
    """``description``, ``personality``, ``scenario`` and ``mesExamples`` for ``speaker`` in a JOIN
    group (already macro-expanded, as the card fields are), or None in SWAP mode.

    The chat's ``scenario`` (and in 1.18 its ``mes_example``) override replaces the joined text.
    """
    if not cast.group.joins_cards or not cast.group.members:
        return None
    joiner = _Joiner(cast, speaker, expand, compat, instruct_wrap)
    scenario_override = chat_metadata.get("scenario") or ""
    scenario_override = scenario_override if isinstance(scenario_override, str) else str(scenario_override)
    if compat.group_scenario_override_macros:
        scenario = expand_speaker(js_trim(scenario_override))
    else:
        scenario = js_trim(scenario_override)
    examples = ""
    if compat.chat_overrides_examples_and_system:
        examples_override = chat_metadata.get("mes_example") or ""
        examples = expand_speaker(js_trim(str(examples_override)))
    return {
        "description": joiner.field("description"),
        "personality": joiner.field("personality"),
        "scenario": scenario or joiner.field("scenario"),
        "mesExamples": examples or joiner.field("mes_example"),
    }


class DepthPrompt(msgspec.Struct, frozen=True):
    text: str
    depth: Any  # as stored (``?? 4``): the extension table reads it like ST's setExtensionPrompt
    role: Any  # a role name as stored (``?? "system"``)


def group_depth_prompts(cast: Cast, speaker: str, expand: Callable[[str, str], str]) -> list[DepthPrompt]:
    """Every unmuted member's (and the speaker's) depth prompt in a JOIN group; none in SWAP mode.

    Muted members are left out even in "join, include muted": SillyTavern checks only the mute.
    """
    group = cast.group
    if group.mode == GenerationMode.SWAP:
        return []
    out = []
    for member in group.members:
        card = cast.card(member)
        if card is None or (group.is_muted(member) and member != speaker):
            continue
        data = card.get("data")
        extensions = data.get("extensions") if isinstance(data, Mapping) else None
        raw = extensions.get("depth_prompt") if isinstance(extensions, Mapping) else None
        prompt = raw if isinstance(raw, Mapping) else {}
        text_raw = prompt.get("prompt")
        text = expand(js_trim(text_raw), card_name(card)) if isinstance(text_raw, str) else ""
        if text:
            depth = prompt.get("depth") if prompt.get("depth") is not None else 4
            role = prompt.get("role") if prompt.get("role") is not None else "system"
            out.append(DepthPrompt(text, depth, role))
    return out


__all__ = ["DepthPrompt", "group_depth_prompts", "joined_fields"]
