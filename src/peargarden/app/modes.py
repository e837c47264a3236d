"""Modes: how a beat's request is built and which tools it offers.

A :data:`ModeSetup` receives the :class:`BeatEnv` of a beat and returns the request builder and the
tools.  ``stage`` is the stage package's setup (layered system prompt, per-beat injection, lore and
draft tools: :func:`peargarden.modes.stage.request.stage_setup`); ``tavern`` is SillyTavern's exact
request (:mod:`peargarden.modes.tavern.setup`, one generation, no tools).  :func:`plain_setup` (card fields as a system
prompt) stays as a fallback for tests and other fronts; :func:`register_mode` adds or replaces modes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.providers.base import ThinkingLevel
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.config import Settings

from .builders import plain_builder


@dataclass
class BeatEnv:
    """Everything a mode may need to set up a beat."""

    card: CardFolder
    card_data: dict[str, Any]  # the card JSON (V2/V3 object)
    settings: Settings  # global settings with the card's 卡.json on top
    user_name: str
    user_persona: str
    thinking: ThinkingLevel
    embedded: bool
    chat_id: str
    # The main model is small (a local GGUF under a few billion parameters): the stage sends its
    # compact profile (peargarden.stage.compact).  Decided from the model's header, not its name.
    small_model: bool = False
    # Per-chat cache a mode may keep between beats (e.g. a lore corpus); cleared when the chat closes.
    cache: dict[str, Any] = field(default_factory=dict)
    cache_lock: threading.Lock = field(default_factory=threading.Lock)
    # The chat's story memory for a beat (summary, scene notes, budget): a callable returning a
    # ``peargarden.stage.memory.view.StoryView``; set by the service, read by the stage builder.
    story: Callable[[], Any] | None = None


ModeSetup = Callable[[BeatEnv], tuple[RequestBuilder, list[Tool]]]


def _card_fields(env: BeatEnv) -> dict[str, Any]:
    data = env.card_data.get("data")
    return data if isinstance(data, dict) else env.card_data


def plain_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    return plain_builder(_card_fields(env), env.user_name), []


def stage_mode(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    from peargarden.modes.stage.preset import preset_sampler, sync_active_preset, with_preset
    from peargarden.modes.stage.request import stage_setup

    # Like a config refresh: a changed active preset is declared again before the files are read.
    warnings = sync_active_preset(env.card.home, env.card)
    builder, tools = stage_setup(env)
    return with_preset(builder, preset_sampler(env.card.home, env.card), warnings), tools


def tavern_mode(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    from peargarden.modes.tavern.setup import tavern_setup

    return tavern_setup(env)


MODES: dict[str, ModeSetup] = {"stage": stage_mode, "tavern": tavern_mode}


# Tags every message recorded in a mode carries (work-mode messages stay out of the story stream).
MODE_TAGS: dict[str, list[str]] = {"work": ["work"]}

# The custom entry that records a mode change on the branch (the latest on the branch wins).
MODE_ENTRY_TYPE = "mode"


def register_mode(name: str, setup: ModeSetup, tags: list[str] | None = None) -> None:
    MODES[name] = setup
    if tags is not None:
        MODE_TAGS[name] = list(tags)


def mode_setup(name: str) -> ModeSetup:
    from peargarden.errors import BadInput

    try:
        return MODES[name]
    except KeyError:
        raise BadInput(f"未知的对话方式 {name!r}（可用：{'、'.join(MODES)}）") from None


def _install_work_mode() -> None:
    # Work mode (写卡维护) joins the table, and the role-play modes learn to leave its beats out.
    from peargarden.modes.work.setup import install_work_mode

    install_work_mode()


_install_work_mode()
