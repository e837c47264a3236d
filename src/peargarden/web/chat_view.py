"""A message row of the service's page model (``ChatSession.view()``) as the chat page's JSON: the
avatar URLs of this server and the text as sanitised HTML (``markdown.py``: Markdown with the HTML it
carries) unless it is a document (a page, a style or script block, a display script's status bar),
which the page frames; a status bar with scripts comes as ``parts`` (``status_frame.py``)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from peargarden.app.play import MessageRow

from .markdown import is_document, render
from .status_frame import status_parts


def message_json(card: str, row: MessageRow) -> dict[str, Any]:
    """One message as the chat page draws it."""
    text = row.display or row.content
    if row.role == "assistant":
        avatar: str | None = f"/api/cards/{quote(card, safe='')}/avatar?size=thumb"
    elif row.role == "user" and row.persona_avatar:
        avatar = f"/api/personas/{quote(row.persona_avatar, safe='')}/avatar?size=thumb"
    else:
        avatar = None
    return {
        "speaker": row.speaker,
        "avatar": avatar,
        "time": row.time,
        "tokens": row.tokens,
        "gen_seconds": row.seconds,
        "html": message_html(text, row.display is not None) if text else "",
        "index": row.index,
        "id": row.id,
        "role": row.role,
        "name": row.name,
        "content": row.content,
        "display": row.display,
        "reasoning": row.reasoning,
        "tool_calls": row.tool_calls,
        "tool_call_id": row.tool_call_id,
        "is_error": row.is_error,
        "tags": row.tags,
        "sibling": list(row.sibling),  # (position, count) among the message's versions
        "undoable": row.undoable,  # edited or continued in place: undo gives it its text before
        "lore": row.lore,  # a reply: the lorebook entries that fired for it ({"title", "book"})
        "message_id": row.message_id,  # SillyTavern's number (TavernHelper's getCurrentMessageId())
        # A status bar the card's display script made: Markdown around sandboxed frames (status_frame.py)
        "parts": status_parts(row.display, row.content, _segment_html),
        "image": row.image,  # a picture message: the picture in the chat's folder (images/<file>)
        # A stage beat's row that ends its draft: the prose the reader read, drawn as the reply's text
        # (its tool calls fold away); the row that asked: the fork ({"question", "options", "free_text"}).
        "prose": row.prose,
        "prose_html": message_html(row.prose) if row.prose else None,
        "choice": row.choice,
        "beat_step": row.beat_step,  # an earlier round of such a beat: drawn as its folded calls only
    }


@lru_cache(maxsize=4096)
def message_html(text: str, from_display_script: bool = False) -> str | None:
    """Sanitised HTML of a message's Markdown; ``None`` for a document (shown in the sandboxed frame).
    Kept for the texts last drawn: a page that scrolls back and forth, or reopens, renders nothing twice."""
    return None if is_document(text, from_display_script=from_display_script) else render(text)


def _segment_html(text: str) -> str | None:
    return message_html(text, True)


def sent_ids(sent: str, messages: Iterable[tuple[str | None, str]]) -> list[str]:
    """The ids of the (id, text) messages whose text the request text *sent* carries (the page's
    "in context from here" marker)."""
    found = []
    for entry_id, content in messages:
        text = content.strip()
        if text and entry_id and text in sent:
            found.append(entry_id)
    return found
