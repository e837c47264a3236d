"""Cards as files from the page: create from scratch, export (PNG / JSON / CHARX), rename, a new
avatar, duplicate, delete into the vault (with what undoes it).

Rename changes the character's name inside the card file (SillyTavern's ``name``; ``{{char}}``
follows it); the folder keeps its name, so the card's chats, ``卡.json`` and links stay where they
are.  Every change that rewrites or removes a card file takes a vault snapshot first.
"""

from __future__ import annotations

import io
import shutil
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import Response
from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel, Field

from peargarden.errors import BadInput, ConflictError
from peargarden.formats import Card, card_to_charx, card_to_json, card_to_png
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, folder_name, list_cards, open_card, unique_name
from peargarden.workspace.exporter import CARD_FORMATS, card_image, default_spec, export_card, placeholder_png
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault

from .api_cards import save_upload
from .api_chat import hub_of
from .deps import home_of

router = APIRouter(prefix="/api")

MAX_AVATAR_BYTES = 20 * 1024 * 1024
_MEDIA = {"png": "image/png", "json": "application/json", "charx": "application/zip"}


def _snapshot(home: Home, reason: str) -> dict[str, str]:
    """A vault snapshot now (or the newest, when nothing changed since): the undo point."""
    vault = Vault(home)
    info = vault.snapshot(reason) or vault.latest()
    if info is None:
        raise BadInput("保险库没能留下快照，什么都没有改（vault snapshot failed）")
    return {"snapshot": info.id}


def _write_card(folder: CardFolder, card: Card, image: bytes | None = None) -> None:
    """Write *card* back as its own kind of file (a new *image* makes it a PNG card)."""
    path = folder.card_file()
    spec = default_spec(card)
    if image is not None or path is None or path.suffix.lower() == ".png":
        picture = image or card_image(folder, card) or placeholder_png()
        target = folder.path / f"{folder.folder}.png"
        atomic.write_bytes(target, card_to_png(card, picture, spec))
        if path is not None and path != target:
            path.unlink()
    elif path.suffix.lower() == ".json":
        atomic.write_bytes(path, card_to_json(card, spec))
    else:
        atomic.write_bytes(path, card_to_charx(card))


@router.get("/cards/{card}/export")
def export(request: Request, card: str, format: str = "png") -> Response:
    """The card as a SillyTavern file (``format`` = ``png`` | ``json`` | ``charx``)."""
    if format not in CARD_FORMATS:
        raise BadInput(f"format 只能是 png、json 或 charx，实际是 {format!r}")
    folder, data = export_card(home_of(request), card, format)
    name = quote(f"{folder.folder}.{format}")
    disposition = {"Content-Disposition": f"attachment; filename*=UTF-8''{name}"}
    return Response(data, media_type=_MEDIA[format], headers=disposition)


class NewCard(BaseModel):
    name: str = Field(max_length=200)
    description: str = Field("", max_length=200_000)
    first_mes: str = Field("", max_length=200_000)


@router.post("/cards")
def create(request: Request, body: NewCard) -> dict[str, Any]:
    """A new card from scratch (a V3 PNG card with a plain picture)."""
    home = home_of(request)
    name = body.name.strip()
    base = folder_name(name)
    folder = CardFolder(home, unique_name(base, [f.folder for f in list_cards(home)]))
    card = Card.new(name, description=body.description, first_mes=body.first_mes)
    atomic.write_bytes(folder.path / f"{folder.folder}.png", card_to_png(card, placeholder_png(), "v3"))
    return {"folder": folder.folder, "name": name}


class RenameCard(BaseModel):
    name: str = Field(max_length=200)


@router.post("/cards/{card}/rename")
def rename(request: Request, card: str, body: RenameCard) -> dict[str, Any]:
    """Change the character's name in the card file (the folder stays)."""
    home = home_of(request)
    folder = open_card(home, card)
    name = " ".join(body.name.split())
    if not name:
        raise BadInput("新名字是空的（empty name）")
    loaded = folder.load_card()
    undo = _snapshot(home, f"改名 {folder.folder} → {name}")
    loaded.data["name"] = name
    _write_card(folder, loaded)
    hub_of(request).card_changed(folder.folder)
    return {"folder": folder.folder, "name": name, "undo": undo}


@router.post("/cards/{card}/avatar")
async def avatar(request: Request, card: str, file: UploadFile) -> dict[str, Any]:
    """A new picture: any image Pillow reads, stored as the PNG the card lives in."""
    home = home_of(request)
    folder = open_card(home, card)
    loaded = folder.load_card()
    scratch = folder.path / ".avatar-upload"
    try:
        await save_upload(file, scratch, MAX_AVATAR_BYTES)
        try:
            with Image.open(scratch) as opened:
                opened.load()
                buffer = io.BytesIO()
                opened.convert("RGBA").save(buffer, format="PNG")
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
            raise BadInput("这不是能读的图片（not an image）", path=file.filename) from None
    finally:
        scratch.unlink(missing_ok=True)
    undo = _snapshot(home, f"换头像 {folder.folder}")
    _write_card(folder, loaded, buffer.getvalue())
    hub_of(request).card_changed(folder.folder)
    return {"folder": folder.folder, "undo": undo}


@router.post("/cards/{card}/duplicate")
def duplicate(request: Request, card: str) -> dict[str, Any]:
    """A copy of the card's folder without its chats (as SillyTavern duplicates a character)."""
    home = home_of(request)
    folder = open_card(home, card)
    target = CardFolder(home, unique_name(folder.folder, [f.folder for f in list_cards(home)]))
    shutil.copytree(folder.path, target.path, ignore=shutil.ignore_patterns("chats", ".*"))
    # The card file is named after its folder: follow the new folder's name.
    for suffix in (".png", ".json", ".charx"):
        old = target.path / f"{folder.folder}{suffix}"
        if old.is_file():
            old.rename(target.path / f"{target.folder}{suffix}")
    return {"folder": target.folder, "name": target.load_card().name}


@router.post("/cards/{card}/delete")
def delete(request: Request, card: str) -> dict[str, Any]:
    """Remove the card's folder (its chats too) after a vault snapshot; the answer says how to undo."""
    home = home_of(request)
    folder = open_card(home, card)
    hub = hub_of(request)
    if hub.busy(folder.folder):
        raise ConflictError("这张卡有对话正在生成回复（a beat is running）")
    undo = _snapshot(home, f"删除卡 {folder.folder}")
    shutil.rmtree(folder.path)
    hub.forget_card(folder.folder)
    return {"removed": folder.folder, "undo": {**undo, "path": folder.path.relative_to(home.root).as_posix()}}
