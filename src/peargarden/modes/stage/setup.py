"""The stage mode's setup (reads only) and its prepare step (the writes before a recorded beat)."""

from __future__ import annotations

from collections.abc import Iterator

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.tools import Tool

from ..base import BeatEnv, SideModel
from .materials import load_stage_materials, sync_agents_mirror
from .preset import (
    Labeller,
    preset_sampler,
    preset_warnings,
    provider_labeller,
    stale_preset,
    sync_active_preset,
    with_preset,
)
from .request import stage_setup


def stage_mode(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    """The stage request with the declared preset's samplers; writes nothing (a preview may call it)."""
    builder, tools = stage_setup(env)
    warnings = preset_warnings(env.folder.home, env.folder)
    return with_preset(builder, preset_sampler(env.folder.home, env.folder), warnings), tools


def stage_prepare(env: BeatEnv, side: SideModel) -> Iterator[str]:
    """Before a recorded stage beat, like a config refresh: a changed active preset is declared again
    (a side-model call for new pieces, then the card's files), and an existing ``AGENTS.md`` gets its
    lorebook mirror rewritten.  The re-declaration says what it does (the beat waits for it)."""
    home, folder = env.folder.home, env.folder
    stem = stale_preset(home, folder)
    if stem:
        yield f"预设「{stem}」有改动：重新声明中…"

        def labeller() -> Labeller:
            provider, model = side()
            return provider_labeller(provider, model)

        yield from sync_active_preset(home, folder, labeller)
        yield f"预设「{stem}」已重新声明"
    # Silent, as before: the beat reads the same text either way (see with_synced_mirror).
    sync_agents_mirror(load_stage_materials(home, folder))
