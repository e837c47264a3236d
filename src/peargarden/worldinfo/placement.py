"""Helpers for placing world-info output the way SillyTavern 1.12.6 does."""

from __future__ import annotations

from collections.abc import Sequence


def wrap_authors_note(note: str, top: Sequence[str], bottom: Sequence[str]) -> str:
    """The Author's Note with ANTop/ANBottom entries around it (only when the note is active).

    SillyTavern joins ``top + "\\n" + note + "\\n" + bottom`` and then removes one leading and one
    trailing newline, so an empty list leaves no blank line at that side.
    """
    text = "\n".join(top) + "\n" + note + "\n" + "\n".join(bottom)
    if text.startswith("\n"):
        text = text[1:]
    if text.endswith("\n"):
        text = text[:-1]
    return text
