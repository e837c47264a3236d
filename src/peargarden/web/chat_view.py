"""A message row of the service's page model (``ChatSession.view()``) as the chat page's JSON: the
avatar URLs of this server and the text as sanitised HTML (``markdown.py``) unless it is card HTML,
which the page frames."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from peargarden.app.play.chat_page import MessageRow

from .markdown import looks_like_html, render


def message_json(card: str, row: MessageRow) -> dict[str, Any]:
    """One message as the chat page draws it."""
    text = row.display or row.content
    if row.role == "assistant":
        avatar: str | None = f"/api/cards/{quote(card, safe='')}/avatar"
    elif row.role == "user" and row.persona_avatar:
        avatar = f"/api/personas/{quote(row.persona_avatar, safe='')}/avatar"
    else:
        avatar = None
    return {
        "speaker": row.speaker,
        "avatar": avatar,
        "time": row.time,
        "tokens": row.tokens,
        "gen_seconds": row.seconds,
        "html": message_html(text) if text else "",
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
    }


def message_html(text: str) -> str | None:
    """Sanitised HTML of a message's Markdown; ``None`` for card HTML (shown in the sandboxed frame)."""
    return None if looks_like_html(text) else render(text)
