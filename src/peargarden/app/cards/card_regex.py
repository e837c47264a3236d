"""A card's regex scripts (``data.extensions.regex_scripts``) for the editor: read them, and write a
changed list back into the card file atomically in its own format (a PNG keeps its image bytes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from peargarden.modes.work.project import write_card
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home


def _scripts(data: dict[str, Any]) -> list[Any]:
    extensions = data.get("extensions")
    scripts = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    return scripts if isinstance(scripts, list) else []


def card_scripts(home: Home, card: str) -> dict[str, Any]:
    data = open_card(home, card).load_card().data
    return {"card": card, "scripts": [{"index": i, "script": s} for i, s in enumerate(_scripts(data))
                                      if isinstance(s, dict)]}  # fmt: skip


def change_scripts(home: Home, card: str, change: Callable[[list[Any]], list[Any]]) -> dict[str, Any]:
    """Apply *change* (a pure edit of the list) and write the card; the scripts as :func:`card_scripts`."""
    folder = open_card(home, card)
    loaded = folder.load_card()
    new = change(_scripts(loaded.data))
    extensions = loaded.data.get("extensions")
    if not isinstance(extensions, dict):
        extensions = loaded.data["extensions"] = {}
    extensions["regex_scripts"] = new
    write_card(folder, loaded)
    return card_scripts(home, card)
