"""The service the fronts (``cli``, ``web``) use, and nothing else beside ``errors`` and ``formats``.

Rooms, one job each:

- :mod:`.play` — playing a chat: the service (``PearApp``, ``ChatSession.play`` → ``Beat``), the
  beat log, checkpoints of a streaming reply, the page model (``ChatSession.view()``), story memory on
  request, the sandbox as the loop's judge, SillyTavern oracle replay, chat records and files.
- :mod:`.cards` — one card's files and editors: pictures and renames, the card project ``创作/``, its
  regex scripts and their allowance, the studio, the prompt files' entries, lorebooks, preset
  declaration, the tavern panel.
- :mod:`.library` — the data folder's shared things: the card list and shared lorebooks, imports,
  personas, preset files, JSON files written back in their own style, the asset vault.
- :mod:`.settings` — connections (main and side model), stored keys, ``config.toml`` edits, the
  settings page, model lists and the embedded models.
- :mod:`.extras` — beside the chat: translation, expressions and sprites, voices, pictures, themes.

The fronts import this package and the rooms' packages, nothing deeper (``tests/test_architecture.py``
checks it): each face exports exactly the names the fronts use, each loaded from its module on first use
(:mod:`._lazy`), so a light command such as ``pear cards`` never loads the chat machinery.  Here: the
service (``PearApp``, ``ChatOptions``, ``ChatSession``, ``GroupSession``, ``AnyChat`` for either), a
beat (``Beat``, ``ApprovalPrompt``) and its events (``AgentEvent``; the classes a front matches on,
``TextDeltaEvent`` … ``DoneEvent``, the reader's ``ProseEvent`` and ``ChoiceEvent``), the data
folder (``Home``, ``sanitize_name``), the tokenizers' cache (``cache_tokenizers_in``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.agent.events import (
    AgentEvent,
    ChoiceEvent,
    DoneEvent,
    ErrorEvent,
    ProseEvent,
    SpeakerEvent,
    TextDeltaEvent,
    TextRetractEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolStartEvent,
    WarningEvent,
)
from peargarden.app._lazy import lazy_names
from peargarden.workspace.home import Home, sanitize_name

if TYPE_CHECKING:
    from .play.beat import ApprovalPrompt, Beat, PageItem
    from .play.group_session import GroupSession
    from .play.service import ChatOptions, ChatSession, PearApp
    from .settings.tokenizers import cache_tokenizers_in

    # What a front holds when it holds either kind of chat (for annotations: a card's chat never
    # loads the group's modules).  Both have the reads and edits of ``ChatCore``, ``play``, ``view``,
    # ``variables``, ``swipe_position``, ``export_sillytavern`` and ``char_name``.
    AnyChat = ChatSession | GroupSession

__all__ = [
    "AgentEvent",
    "ApprovalPrompt",
    "Beat",
    "ChatOptions",
    "ChatSession",
    "ChoiceEvent",
    "DoneEvent",
    "ErrorEvent",
    "GroupSession",
    "Home",
    "PageItem",
    "PearApp",
    "ProseEvent",
    "SpeakerEvent",
    "TextDeltaEvent",
    "TextRetractEvent",
    "ThinkingDeltaEvent",
    "ToolEndEvent",
    "ToolStartEvent",
    "WarningEvent",
    "cache_tokenizers_in",
    "sanitize_name",
]

_LAZY = {
    "ApprovalPrompt": ".play.beat",
    "Beat": ".play.beat",
    "ChatOptions": ".play.service",
    "ChatSession": ".play.service",
    "GroupSession": ".play.group_session",
    "PageItem": ".play.beat",
    "PearApp": ".play.service",
    "cache_tokenizers_in": ".settings.tokenizers",
}

__getattr__ = lazy_names(__name__, _LAZY)
