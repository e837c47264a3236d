"""The mode table: every way to play, written out (nothing registers itself on import).

The fronts get it through :class:`peargarden.app.service.PearApp` (its default ``modes``); tests and
other fronts pass their own table.  The role-play modes see work-mode beats only as their
【写卡维护】 lines; the stage also offers the ``conversation_mode`` switch into work mode.  The stage
keeps story memory: its ``story`` step reads the branch's summary and scene notes for the builder,
its ``after_beat`` step writes them.

The stage's and tavern mode's rows are made on first use (:class:`~peargarden.modes.base.ModeTable`):
SillyTavern's assembly loads only for a chat played in tavern mode, the stage's modules only for a
chat on the stage.
"""

from __future__ import annotations

from collections.abc import Mapping

from peargarden.authoring.segments import WORK_TAG

from .base import ModeTable, PlayMode
from .tavern.variables import after_beat as tavern_after_beat
from .work.setup import role_play_setup, work_setup

WORK = PlayMode(work_setup, tool_mode="work", tags=(WORK_TAG,))

# The role-play modes' names, for whoever names one: `pear stage assemble` previews the stage, the
# prompt inspector compares tavern against stage.
STAGE, TAVERN = "stage", "tavern"


def _stage() -> PlayMode:
    # on demand: the stage's setup, story memory and variables steps (a tavern chat never plays them)
    from .stage.memory import after_beat as stage_after_beat
    from .stage.memory import stage_story
    from .stage.setup import stage_mode, stage_prepare
    from .stage.variables import after_beat as stage_variables_after_beat
    from .stage.variables import chained, with_variables

    return PlayMode(
        role_play_setup(with_variables(stage_mode), switch=True),
        tool_mode="stage",
        prepare=stage_prepare,
        story=stage_story,
        after_beat=chained(stage_variables_after_beat, stage_after_beat),
        variables=stage_variables_after_beat,
        hides_update_blocks=True,
    )


def _tavern() -> PlayMode:
    from .tavern.setup import tavern_setup  # on demand: SillyTavern's assembly

    return PlayMode(
        role_play_setup(tavern_setup, switch=False),
        tool_mode="tavern",
        # SillyTavern 1.18's typed message: ``extra`` as ``sendMessageAsUser`` and the reasoning step leave it.
        user_fields={"extra": {"isSmallSys": False, "reasoning": ""}},
        after_beat=tavern_after_beat,
        variables=tavern_after_beat,
    )


MODES: Mapping[str, PlayMode] = ModeTable({STAGE: _stage, TAVERN: _tavern, "work": lambda: WORK})
