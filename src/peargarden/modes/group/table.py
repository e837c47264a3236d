"""The ways to play a group chat: the stage (the agent way) and tavern mode (SillyTavern's group
chat, byte-exact).  Work mode is a card's: a group has none."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..base import PlayMode
from ..stage.memory import after_beat as stage_after_beat
from ..stage.memory import stage_story
from ..stage.setup import stage_prepare
from .stage import group_stage_setup
from .tavern import group_tavern_setup

GROUP_MODES: Mapping[str, PlayMode] = MappingProxyType(
    {
        "stage": PlayMode(
            group_stage_setup,
            tool_mode="stage",
            prepare=stage_prepare,
            story=stage_story,
            after_beat=stage_after_beat,
        ),
        "tavern": PlayMode(group_tavern_setup, tool_mode="tavern"),
    }
)
