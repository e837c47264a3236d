"""What MVU reads of a card's lorebooks without running anything: the books in order and the marks
in an entry's comment (case-insensitive, plain strings).  Whether a chat keeps MVU variables is
decided here, so a chat without them (and the stage's lore, which only filters entries) never loads
the engine (:mod:`.initvar`, :mod:`.update` and the parsers they use)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from peargarden.variables.jsvalues import js_keys

INITVAR_MARK = "[initvar]"
UPDATE_RULES_MARK = "[mvu_update]"


class Lorebook(msgspec.Struct, frozen=True):
    """A lorebook as MVU sees it: its name and its entries (SillyTavern's ``entries`` object or a list)."""

    name: str
    entries: Mapping[str, Any] | Sequence[Mapping[str, Any]]

    def ordered_entries(self) -> list[Mapping[str, Any]]:
        if isinstance(self.entries, Mapping):
            return [self.entries[key] for key in js_keys(dict(self.entries)) if isinstance(self.entries[key], Mapping)]
        return [entry for entry in self.entries if isinstance(entry, Mapping)]


def is_initvar_entry(entry: Mapping[str, Any]) -> bool:
    """An ``[initvar]`` entry: the variables a new chat starts with (disabled ones count too)."""
    comment = entry.get("comment")
    return isinstance(comment, str) and INITVAR_MARK in comment.lower()


def is_update_rules(entry: Mapping[str, Any]) -> bool:
    """An ``[mvu_update]`` entry: the card's instructions for writing update commands."""
    comment = entry.get("comment")
    return isinstance(comment, str) and UPDATE_RULES_MARK in comment.lower()
