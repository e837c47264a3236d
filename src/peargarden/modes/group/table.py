"""The ways to play a group chat: the stage (the agent way) and tavern mode (SillyTavern's group
chat, byte-exact).  Work mode is a card's: a group has none.

A card's variables (MVU) play in a group as in a card's chat, once per reply: the variables step
(:mod:`peargarden.modes.tavern.variables`, :mod:`peargarden.modes.stage.variables`) runs after each
speaker's reply (``after_reply``) with that speaker's env, so the next speaker's request reads the
variables the reply left."""

from __future__ import annotations

from collections.abc import Mapping

from ..base import ModeTable, PlayMode
from ..stage.memory import after_beat as stage_after_beat
from ..stage.memory import stage_story
from ..stage.setup import stage_prepare
from ..stage.variables import after_beat as stage_variables_after_beat
from ..stage.variables import with_variables
from ..tavern.variables import after_beat as tavern_variables_after_beat


def _stage() -> PlayMode:
    from .stage import group_stage_setup  # on demand: a group's scene and SillyTavern's group cast

    return PlayMode(
        with_variables(group_stage_setup),
        tool_mode="stage",
        prepare=stage_prepare,
        story=stage_story,
        after_beat=stage_after_beat,
        after_reply=stage_variables_after_beat,
        variables=stage_variables_after_beat,
        hides_update_blocks=True,
        names_next_speaker=True,
    )


def _tavern() -> PlayMode:
    from .tavern import group_tavern_setup  # on demand: SillyTavern's assembly for a group

    return PlayMode(
        group_tavern_setup,
        tool_mode="tavern",
        after_reply=tavern_variables_after_beat,
        variables=tavern_variables_after_beat,
    )


GROUP_MODES: Mapping[str, PlayMode] = ModeTable({"stage": _stage, "tavern": _tavern})
