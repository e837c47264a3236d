"""Regex scripts on the stage: SillyTavern's prompt-time pass over the story the model is sent.

The same scripts as tavern assembly — the library's global scripts, then the card's own when the user
allowed them — run over each message of the story at prompt time (``is_prompt``), user messages at
the user-input placement and replies at the AI-output placement, with depth counted from the newest
message (the user's new words are depth 0).  So a card's prompt-only script that strips a status
bar from old replies strips it here too.  Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from peargarden.text.regex_scripts import Placement, RegexSet

from .macros import Macros
from .messages import Turn

__all__ = ["regexed_story"]


def regexed_story(history: Sequence[Turn], user_text: str, regex: RegexSet, macros: Macros) -> tuple[list[Turn], str]:
    """*history* and the new words with the prompt-time regex scripts applied."""
    if not any(True for _ in regex.scripts()):
        return list(history), user_text
    offset = 1 if user_text.strip() else 0
    newest = len(history) - 1
    out: list[Turn] = []
    for index, turn in enumerate(history):
        placement = Placement.USER_INPUT if turn.role == "user" else Placement.AI_OUTPUT
        depth = newest - index + offset
        text = regex.apply(turn.text, placement, is_prompt=True, depth=depth, substitute=macros)
        out.append(Turn(turn.role, text))
    if not offset:
        return out, user_text
    return out, regex.apply(user_text, Placement.USER_INPUT, is_prompt=True, depth=0, substitute=macros)
