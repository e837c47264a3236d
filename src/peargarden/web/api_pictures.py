"""Pictures on the page (SillyTavern's image generation extension).

- ``POST …/picture`` ``{"kind": "last"|"character"|"scene"|"free", "prompt"?}`` → ``{"index", "image",
  "prompt", "kind"}``: the picture made, kept with the chat and written into it as a picture message;
- ``GET …/pictures/{file}`` → one of the chat's pictures.

Both on a card's chats (``/api/chats/{card}/{chat}``) and a group's (``/api/groups/{group}/chats/{chat}``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel

from peargarden.app.extras import imagine, picture_file

from .deps import home_of
from .extras_chats import both, chat_of

router = APIRouter()


class PictureBody(BaseModel):
    kind: str = "last"
    prompt: str | None = None


@router.post(both("/picture")[0])
@router.post(both("/picture")[1])
def picture(request: Request, card: str, chat_id: str, body: PictureBody) -> dict[str, Any]:
    chat = chat_of(request, card, chat_id)
    made = imagine(home_of(request), chat.session, body.kind, body.prompt if body.kind == "free" else None)
    chat.wrote()
    return {"index": made.index, "image": f"images/{made.file.name}", "prompt": made.prompt, "kind": made.kind}


@router.get(both("/pictures/{name}")[0])
@router.get(both("/pictures/{name}")[1])
def picture_of(request: Request, card: str, chat_id: str, name: str) -> Response:
    data, kind = picture_file(chat_of(request, card, chat_id).session, name)
    return Response(data, media_type=kind, headers={"Cache-Control": "private, max-age=31536000, immutable"})
