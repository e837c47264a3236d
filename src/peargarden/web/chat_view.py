"""What the chat page draws around each message (SillyTavern's message chrome) and the context bar.

Per message: who speaks (the persona or the card's character) and the avatar to show (the card's, or
the picture of the persona who spoke, see ``app.personas.speaker_avatar``), when the entry
was written, its token count (the chat model's tokenizer; SillyTavern counts the same way), the
generation time of the beat that wrote it (from the beat log, when known), and the text as
sanitised HTML (``markdown.py``) unless it is card HTML, which the page frames.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from peargarden.app import beat_log
from peargarden.app.chat_chrome import context_fill as chrome_context
from peargarden.app.chat_chrome import message_time
from peargarden.app.chat_files import token_counter
from peargarden.app.personas import persona_names, speaker_avatar

from .chat_hub import OpenChat
from .markdown import looks_like_html, render


def message_chrome(chat: OpenChat, user: str, char: str) -> list[dict[str, Any]]:
    """One dict per message of the active path (same order as ``tree.messages()``)."""
    session = chat.session
    count = token_counter(session.resolved.model)
    seconds = beat_log.generation_seconds(chat.beats)
    avatar = f"/api/cards/{quote(session.card.folder, safe='')}/avatar"
    personas = session.app.home.personas_dir
    known = persona_names(personas)
    pictures: dict[str, str | None] = {}  # speaker → the persona picture its messages show

    def user_avatar(speaker: str) -> str | None:
        if speaker not in pictures:
            stem = speaker_avatar(personas, speaker, user, known)
            pictures[speaker] = f"/api/personas/{quote(stem, safe='')}/avatar" if stem else None
        return pictures[speaker]

    out = []
    tree = session.chat.tree
    for entry in tree.messages():
        message = entry.message
        role = str(message.get("role", ""))
        content = str(message.get("content") or "")
        speaker = str(message.get("name") or (user if role == "user" else char))
        out.append(
            {
                "speaker": speaker,
                "avatar": avatar if role == "assistant" else user_avatar(speaker) if role == "user" else None,
                "time": message_time(entry, tree),  # an imported message: its own send_date
                "tokens": count(content) if content else 0,
                "gen_seconds": seconds.get(entry.id) if role == "assistant" else None,
            }
        )
    return out


def message_html(text: str) -> str | None:
    """Sanitised HTML of a message's Markdown; ``None`` for card HTML (shown in the sandboxed frame)."""
    return None if looks_like_html(text) else render(text)


def context_fill(chat: OpenChat) -> dict[str, Any]:
    """How full the last request was against the budget it was built for (``app.chat_chrome``)."""
    for beat in reversed(chat.beats):
        rounds = [r for r in beat.rounds if r.get("purpose") == "beat"]
        if rounds:
            return chrome_context(chat.session, rounds)
    return chrome_context(chat.session, [])
