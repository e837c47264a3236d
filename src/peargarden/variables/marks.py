"""The lorebook-entry marks MVU reads in an entry's comment (case-insensitive): plain strings, so a
module that only filters entries (the stage's lore) need not load the engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INITVAR_MARK = "[initvar]"
UPDATE_RULES_MARK = "[mvu_update]"


def is_update_rules(entry: Mapping[str, Any]) -> bool:
    """An ``[mvu_update]`` entry: the card's instructions for writing update commands."""
    comment = entry.get("comment")
    return isinstance(comment, str) and UPDATE_RULES_MARK in comment.lower()
