"""The fronts' way to the card-regex question: may a card's own regex scripts run?

Asked once per card (SillyTavern asks when such a card arrives); the answer is the card's ``卡.json``
``regex_allowed`` (see :mod:`peargarden.workspace.regex_scripts`).  The CLI asks on a terminal at the
first ``pear chat``, the web chat page shows the question inline, ``pear tavern set regex`` and the
page's switch change the answer later.
"""

from __future__ import annotations

from typing import Any

from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.home import Home
from peargarden.workspace.regex_scripts import (
    card_regex_scripts,
    needs_regex_question,
    regex_allowance,
    regex_question,
    set_regex_allowance,
)
from peargarden.workspace.script_allowance import scripts_question

__all__ = [
    "allowance_state",
    "card_scripts_allowed",
    "pending_question",
    "regex_question",
    "scripts_question",
    "set_allowance",
]


def pending_question(home: Home, card: str) -> tuple[str, str] | None:
    """(card folder, the question) when the card has scripts of its own and was never asked."""
    folder = open_card(home, card)
    loaded = folder.load_card()
    return (folder.folder, regex_question(loaded)) if needs_regex_question(folder, loaded) else None


def card_scripts_allowed(folder: CardFolder) -> bool:
    """Whether the card's own scripts may run now: only after a yes (SillyTavern runs none before)."""
    return regex_allowance(folder) is True


def set_allowance(home: Home, card: str, allowed: bool) -> str:
    """Store the answer; returns the card's folder name."""
    folder = open_card(home, card)
    set_regex_allowance(folder, allowed)
    return folder.folder


def allowance_state(home: Home, card: str) -> dict[str, Any]:
    """``{"card", "scripts": [names], "allowed": true|false|null, "question"}`` for the web page."""
    folder = open_card(home, card)
    loaded = folder.load_card()
    scripts = card_regex_scripts(loaded)
    return {
        "card": folder.folder,
        "scripts": [str(s.get("scriptName") or "") for s in scripts],
        "allowed": regex_allowance(folder),
        "question": regex_question(loaded) if scripts else "",
    }
