"""Tavern mode in a group chat: the request SillyTavern 1.18 sends for the member who speaks.

The member's own setup (:func:`peargarden.modes.tavern.setup.tavern_builder`: its card, its
lorebooks, the preset, the chat as SillyTavern lines) with the group put on the state before it
assembles: the cast (every member's card), the speaker (``speak_as``), so the assembly does what
SillyTavern does in that group — joined card fields, members' depth prompts, the group nudge,
names in history, ``{{group}}`` … (:mod:`peargarden.tavern.group_cards`, ``tavern.assemble``).
"""

from __future__ import annotations

from typing import Any

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.modes.base import BeatEnv
from peargarden.modes.tavern.setup import tavern_builder
from peargarden.tavern.group import Cast
from peargarden.tavern.group_round import speak_as
from peargarden.tavern.state import TavernState

from .scene import GroupScene, group_scene


def group_tavern_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    scene, avatar = group_scene(env)

    def in_group(state: TavernState) -> None:
        cast_state(state, scene, avatar)

    return tavern_builder(env, tavern_settings=scene.tavern, prepare_state=in_group), []


def cast_state(state: TavernState, scene: GroupScene, avatar: str) -> None:
    """*state* (built for the member's card alone) as the member speaking in the group."""
    cards: dict[str, dict[str, Any]] = {a: m.card_object for a, m in scene.members.items()}
    cards[avatar] = state.card  # the speaker's as the state holds it (its books attached)
    alone = state.avatar
    state.cast = Cast(scene.group, cards)
    speak_as(state, avatar)
    # The state named the card by its character's name; in the group it is the member's file name,
    # which its extra books and its regex allowance are looked up by.
    old_stem, new_stem = _stem(alone), _stem(avatar)
    world_info = state.wi_settings.get("world_info")
    lore = world_info.get("charLore") if isinstance(world_info, dict) else None
    for entry in lore if isinstance(lore, list) else []:
        if isinstance(entry, dict) and entry.get("name") == old_stem:
            entry["name"] = new_stem
    allowed = state.extension_settings.get("character_allowed_regex")
    if isinstance(allowed, list):
        state.extension_settings["character_allowed_regex"] = [avatar if a == alone else a for a in allowed]


def _stem(avatar: str) -> str:
    return avatar.rsplit(".", 1)[0] if "." in avatar else avatar
