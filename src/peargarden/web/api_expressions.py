"""Expressions on the page: a card's sprite set (listed, served, uploaded) and the expression of a reply.

- ``GET /api/cards/{card}/sprites`` → ``[{"label", "name", "url"}]``; ``GET …/sprites/{name}`` the picture;
  ``POST …/sprites`` (multipart ``files``: images named by label, or one zip / CHARX) imports them, all
  or none: ``{"written", "sprites"}``;
- ``POST /api/chats/{card}/{chat}/expression`` ``{"index"}`` and ``POST /api/groups/{group}/chats/{chat}/expression``
  → ``{"label", "by", "card", "sprite": url | null}`` (a group's reply shows its speaker's sprite).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel

from peargarden.app import Home
from peargarden.app.extras import MAX_SPRITE_BYTES, card_sprites, expression_of, import_sprites, sprite_file
from peargarden.app.library import open_card
from peargarden.errors import BadInput

from .api_cards import UPLOAD_CHUNK
from .deps import home_of
from .extras_chats import both, chat_of

if TYPE_CHECKING:
    from peargarden.app import AnyChat

router = APIRouter(prefix="/api")


def sprite_url(card: str, name: str) -> str:
    return f"/api/cards/{quote(card, safe='')}/sprites/{quote(name, safe='')}"


def sprite_rows(home: Home, card: str) -> list[dict[str, str]]:
    folder = open_card(home, card)
    return [{"label": s.label, "name": s.name, "url": sprite_url(folder.folder, s.name)} for s in card_sprites(folder)]


@router.get("/cards/{card}/sprites")
def sprites(request: Request, card: str) -> list[dict[str, str]]:
    return sprite_rows(home_of(request), card)


@router.get("/cards/{card}/sprites/{name:path}")
def sprite(request: Request, card: str, name: str) -> Response:
    data, kind = sprite_file(open_card(home_of(request), card), name)
    return Response(data, media_type=kind, headers={"Cache-Control": "no-cache"})


@router.post("/cards/{card}/sprites")
async def upload(request: Request, card: str, files: list[UploadFile]) -> dict[str, Any]:
    received: dict[str, bytes] = {}
    for file in files:
        parts: list[bytes] = []
        size = 0
        while chunk := await file.read(UPLOAD_CHUNK):
            size += len(chunk)
            if size > 4 * MAX_SPRITE_BYTES:
                raise BadInput("文件过大（file over 80 MiB）", path=file.filename)
            parts.append(chunk)
        received[file.filename or "upload"] = b"".join(parts)
    if not received:
        raise BadInput("没有收到文件（no files）")
    home = home_of(request)
    written = import_sprites(open_card(home, card), files=received)
    return {"written": written, "sprites": sprite_rows(home, card)}


class ExpressionBody(BaseModel):
    index: int


def _answer(home: Home, session: AnyChat, index: int) -> dict[str, Any]:
    found = expression_of(home, session, index)
    sprite = sprite_url(found.card, found.sprite) if found.sprite else None
    return {"label": found.label, "by": found.by, "card": found.card, "sprite": sprite}


@router.post(both("/expression")[0].removeprefix("/api"))
@router.post(both("/expression")[1].removeprefix("/api"))
def expression(request: Request, card: str, chat_id: str, body: ExpressionBody) -> dict[str, Any]:
    return _answer(home_of(request), chat_of(request, card, chat_id).session, body.index)
