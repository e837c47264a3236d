"""What a chat's page is drawn from: the session's read model (``ChatCore.page_source()``).

The page model (:mod:`.chat_page`) and what a front draws around the messages (:mod:`.chat_chrome`)
read a chat through this value, never through the session: they see the branch and who plays it,
and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from peargarden.sessions.entries import Entry
from peargarden.sessions.tree import SessionTree
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home

from .beat_log import BeatRecord


class RowCard(msgspec.Struct, frozen=True):
    """The card a row's display-only regex scripts come from (SillyTavern runs the scripts of the
    character who wrote the message)."""

    folder: CardFolder  # whose allowance decides whether its scripts run
    data: dict[str, Any]  # its ``data`` object (``Card.data``)
    name: str  # its character's name (``{{char}}``)


def _chat_card(_entry: Entry) -> RowCard | None:
    return None


class PageSource(msgspec.Struct, frozen=True):
    """One chat as its page reads it."""

    tree: SessionTree
    home: Home
    card: CardFolder  # the card (a group's: its first member's)
    card_data: dict[str, Any]  # its ``data`` object (``Card.data``): its display-only regex scripts
    chat_id: str
    mode: str
    modes: list[str]  # the app's mode table, in order
    model: str
    user_name: str
    char_name: str  # the card's character name, or the group's name
    warnings: list[str]  # what reading the session file found
    settings: Settings
    provider: object  # the main model as a beat calls it (it may know its context window)
    beat_records: Callable[[], list[BeatRecord]]  # the beat log, read when first asked for
    # The card a row was written by, when not the chat's own (a group's members); None: the chat's.
    row_card: Callable[[Entry], RowCard | None] = _chat_card
