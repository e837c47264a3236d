"""What the chat shows for a message: the card's display-only regex scripts applied (SillyTavern's
``markdownOnly`` scripts: status bars, styled blocks).  The result may be HTML; the page shows it only
inside a sandboxed iframe.  The card's own scripts run only when the user allowed them for that card
(``app.regex_allowance``; the caller checks), and the stored message is never changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peargarden.text.regex_scripts import Placement, RegexScript, apply_scripts, load_scripts


def card_display_scripts(data: dict[str, Any]) -> list[RegexScript]:
    """The display-only scripts of a card's ``data`` object (``Card.data``)."""
    extensions = data.get("extensions")
    raw = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    return [s for s in load_scripts(raw) if not s.disabled and s.markdown_only]


def display_texts(
    messages: Sequence[tuple[str, str]], scripts: Sequence[RegexScript], user: str, char: str, *, after: int = 0
) -> list[str | None]:
    """For (role, content) pairs, oldest first: the display text, or None when it equals the content.
    *after*: how many shown messages follow the last one given (a window of a longer chat: a
    script's depth counts from the chat's end)."""

    def substitute(text: str) -> str:
        return text.replace("{{user}}", user).replace("{{char}}", char)

    out: list[str | None] = []
    visible = [i for i, (role, _) in enumerate(messages) if role in ("user", "assistant")]
    depth_of = {index: after + len(visible) - 1 - rank for rank, index in enumerate(visible)}
    for index, (role, content) in enumerate(messages):
        if not scripts or role not in ("user", "assistant") or not content:
            out.append(None)
            continue
        placement = Placement.AI_OUTPUT if role == "assistant" else Placement.USER_INPUT
        shown = apply_scripts(scripts, content, placement, is_markdown=True, depth=depth_of[index],
                              substitute=substitute)  # fmt: skip
        out.append(shown if shown != content else None)
    return out
