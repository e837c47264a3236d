"""Voices on the page (SillyTavern's TTS extension).

- ``POST …/speech`` ``{"index"}`` → the message's audio as the speech server made it (kept per
  message: asked again, from the chat's cache);
- ``POST …/speech-line`` ``{"index"}`` → ``{"text", "speaker", "voice"}``: what the page's own speech
  synthesis speaks (the ``browser`` back end; nothing is sent anywhere).

Both on a card's chats (``/api/chats/{card}/{chat}``) and a group's (``/api/groups/{group}/chats/{chat}``).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from peargarden.app.extras import line_of, speak

from .deps import home_of
from .extras_chats import both, chat_of

router = APIRouter()


class SpeechBody(BaseModel):
    index: int


@router.post(both("/speech")[0])
@router.post(both("/speech")[1])
def speech(request: Request, card: str, chat_id: str, body: SpeechBody) -> Response:
    audio = speak(home_of(request), chat_of(request, card, chat_id).session, body.index)
    return Response(audio.data, media_type=audio.content_type, headers={"X-Pear-Cached": str(audio.cached).lower()})


@router.post(both("/speech-line")[0])
@router.post(both("/speech-line")[1])
def speech_line(request: Request, card: str, chat_id: str, body: SpeechBody) -> dict[str, str]:
    line = line_of(home_of(request), chat_of(request, card, chat_id).session, body.index)
    return {"text": line.text, "speaker": line.speaker, "voice": line.voice}
