"""The stage mode's setup: the stage request over the card's files, with the declared preset's sampler."""

from __future__ import annotations

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.tools import Tool

from ..base import BeatEnv
from .preset import preset_sampler, sync_active_preset, with_preset
from .request import stage_setup


def stage_mode(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    # Like a config refresh: a changed active preset is declared again before the files are read.
    warnings = sync_active_preset(env.card.home, env.card)
    builder, tools = stage_setup(env)
    return with_preset(builder, preset_sampler(env.card.home, env.card), warnings), tools
