"""Cards as files from the page: create from scratch, export (PNG / JSON / CHARX), rename, a new
avatar, duplicate, delete into the vault (with what undoes it).  The work is ``app.card_files``."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field

from peargarden.app.cards import (
    CARD_FORMATS,
    create_card,
    delete_card,
    duplicate_card,
    export_card,
    rename_card,
    set_picture,
)
from peargarden.errors import BadInput, ConflictError

from .api_cards import save_upload
from .deps import home_of, hub_of

router = APIRouter(prefix="/api")

MAX_AVATAR_BYTES = 20 * 1024 * 1024
_MEDIA = {"png": "image/png", "json": "application/json", "charx": "application/zip"}


@router.get("/cards/{card}/export")
def export(request: Request, card: str, format: str = "png") -> Response:
    """The card as a SillyTavern file (``format`` = ``png`` | ``json`` | ``charx``)."""
    if format not in CARD_FORMATS:
        raise BadInput(f"format 只能是 png、json 或 charx，实际是 {format!r}")
    folder, data = export_card(home_of(request), card, format)
    disposition = {"Content-Disposition": f"attachment; filename*=UTF-8''{quote(f'{folder.folder}.{format}')}"}
    return Response(data, media_type=_MEDIA[format], headers=disposition)


class NewCard(BaseModel):
    name: str = Field(max_length=200)
    description: str = Field("", max_length=200_000)
    first_mes: str = Field("", max_length=200_000)


@router.post("/cards")
def create(request: Request, body: NewCard) -> dict[str, Any]:
    """A new card from scratch (a V3 PNG card with a plain picture)."""
    folder = create_card(home_of(request), body.name, body.description, body.first_mes)
    return {"folder": folder.folder, "name": body.name.strip()}


class RenameCard(BaseModel):
    name: str = Field(max_length=200)


@router.post("/cards/{card}/rename")
def rename(request: Request, card: str, body: RenameCard) -> dict[str, Any]:
    """Change the character's name in the card file and the card's folder with it (its pages move;
    links to the old name still lead there)."""
    hub = hub_of(request)
    if hub.busy(card):
        raise ConflictError("这张卡的对话正在生成回复，等它结束再改名（a beat is running）")
    folder, name, snapshot = rename_card(home_of(request), card, body.name)
    hub.forget_card(card)  # its open chats live under the new folder now
    hub.card_changed(folder.folder)
    return {"folder": folder.folder, "name": name, "undo": {"snapshot": snapshot}}


@router.post("/cards/{card}/avatar")
async def avatar(request: Request, card: str, file: UploadFile) -> dict[str, Any]:
    """A new picture: any image Pillow reads, stored as the PNG the card lives in."""
    with tempfile.TemporaryDirectory(prefix="pear-avatar-") as scratch:
        target = Path(scratch) / "upload"
        await save_upload(file, target, MAX_AVATAR_BYTES)
        image = target.read_bytes()
    folder, snapshot = set_picture(home_of(request), card, image, file.filename)
    hub_of(request).card_changed(folder.folder)
    return {"folder": folder.folder, "undo": {"snapshot": snapshot}}


@router.post("/cards/{card}/duplicate")
def duplicate(request: Request, card: str) -> dict[str, Any]:
    """A copy of the card's folder without its chats (as SillyTavern duplicates a character)."""
    target = duplicate_card(home_of(request), card)
    return {"folder": target.folder, "name": target.load_card().name}


@router.post("/cards/{card}/delete")
def delete(request: Request, card: str) -> dict[str, Any]:
    """Remove the card's folder (its chats too) after a vault snapshot; the answer says how to undo."""
    hub = hub_of(request)
    folder = hub.app.card(card)
    if hub.busy(folder.folder):
        raise ConflictError("这张卡有对话正在生成回复（a beat is running）")
    removed, undo = delete_card(home_of(request), folder.folder)
    hub.forget_card(removed.folder)
    return {"removed": removed.folder, "undo": undo}
