"""``/api/chats/{card}/{chat}/translations`` and friends: SillyTavern's translate extension on the chat page
(a group's chats the same, under ``/api/groups/{group}/chats/{chat}/``).

- ``GET …/translations`` — the chat's kept translations by message id (``text``, ``html``, ``lang``,
  ``source_lang``, ``kind``), only for messages that still say what they were translated from;
- ``POST …/translate`` ``{"index", "to"?}`` — message *index* translated (default: the user's
  language) and kept: ``{"id", "text", "html", "source_lang"}``;
- ``POST …/translate-input`` ``{"text"}`` — the words typed, into the language the model reads:
  ``{"text", "to"}``; ``POST …/keep-input`` ``{"index", "original"}`` keeps the typed words beside
  the message that was sent translated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.extras import keep_input, model_language, translate_message, translate_text, translations

from .chat_view import message_html
from .deps import home_of
from .extras_chats import both, chat_of

if TYPE_CHECKING:
    from peargarden.app import AnyChat

router = APIRouter()


def _html(text: str) -> str | None:
    return message_html(text)


def kept_translations(session: AnyChat) -> dict[str, Any]:
    """The chat's kept translations by message id, each with its sanitised HTML."""
    kept = translations(session)
    return {entry: {**record, "html": _html(str(record.get("text") or ""))} for entry, record in kept.items()}


@router.get(both("/translations")[0])
@router.get(both("/translations")[1])
def kept(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    return kept_translations(chat_of(request, card, chat_id).session)


class TranslateBody(BaseModel):
    index: int
    to: str | None = None


@router.post(both("/translate")[0])
@router.post(both("/translate")[1])
def translate(request: Request, card: str, chat_id: str, body: TranslateBody) -> dict[str, Any]:
    chat = chat_of(request, card, chat_id)
    found = translate_message(home_of(request), chat.session, body.index, body.to)
    entry = chat.session.chat.tree.messages()[body.index]
    return {"id": entry.id, "text": found.text, "html": _html(found.text), "source_lang": found.source_lang}


class InputBody(BaseModel):
    text: str


@router.post(both("/translate-input")[0])
@router.post(both("/translate-input")[1])
def translate_input(request: Request, card: str, chat_id: str, body: InputBody) -> dict[str, str]:
    home = home_of(request)
    chat = chat_of(request, card, chat_id)
    target = model_language(home, chat.session)
    return {"text": translate_text(home, chat.session, body.text, target).text, "to": target}


class KeepBody(BaseModel):
    index: int
    original: str


@router.post(both("/keep-input")[0])
@router.post(both("/keep-input")[1])
def keep(request: Request, card: str, chat_id: str, body: KeepBody) -> dict[str, bool]:
    chat = chat_of(request, card, chat_id)
    keep_input(home_of(request), chat.session, body.index, body.original)
    return {"kept": True}
