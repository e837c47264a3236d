"""``/api/cards`` and ``/api/import``: the card grid, avatars and imports by upload."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import Response

from peargarden.app import sanitize_name
from peargarden.app.library import imports
from peargarden.app.library.library import card as open_card
from peargarden.app.library.library import card_summary
from peargarden.app.library.library import cards as card_folders
from peargarden.errors import BadInput, NotFound, PearError
from peargarden.formats import MAX_INPUT_BYTES

from .deps import home_of

router = APIRouter(prefix="/api")

_PLACEHOLDER_AVATAR = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#d9e4dd"/>'
    '<text x="32" y="42" font-size="28" text-anchor="middle" fill="#4a6b5d">梨</text></svg>'
)


def _card_row(folder: Any) -> dict[str, Any]:
    row = card_summary(folder)  # a damaged card is listed with its error: it never hides the others
    problem = row.get("error")
    return {
        "folder": row["folder"],
        "name": row["folder"] if problem else row["name"],
        "lorebooks": [] if problem else row["lorebooks"],
        "chats": row["chats"],
        "avatar": f"/api/cards/{quote(row['folder'], safe='')}/avatar",
        "error": problem,
    }


@router.get("/cards")
def cards(request: Request) -> list[dict[str, Any]]:
    return [_card_row(folder) for folder in card_folders(home_of(request))]


@router.get("/cards/{name}/avatar")
def avatar(request: Request, name: str) -> Response:
    folder = open_card(home_of(request), name)
    path = folder.card_file()
    if path is not None and path.suffix.lower() == ".png":
        return Response(path.read_bytes(), media_type="image/png", headers={"Cache-Control": "no-cache"})
    if path is not None:
        try:
            icon = folder.load_card().icon()
        except Exception:
            icon = None
        if icon:
            return Response(icon, media_type="image/png")
    return Response(_PLACEHOLDER_AVATAR, media_type="image/svg+xml")


UPLOAD_CHUNK = 1024 * 1024


async def save_upload(upload: UploadFile, target: Path, limit: int = MAX_INPUT_BYTES) -> None:
    """Copy an uploaded file to *target* a chunk at a time, refusing it once it passes *limit*
    (the whole file is never held in memory)."""
    size = 0
    with target.open("wb") as out:
        while chunk := await upload.read(UPLOAD_CHUNK):
            size += len(chunk)
            if size > limit:
                raise BadInput(f"文件过大（file over {limit // (1024 * 1024)} MiB）", path=upload.filename)
            out.write(chunk)


@router.post("/import")
async def import_files(
    request: Request, files: list[UploadFile], book: str = Form("mount"), card: str | None = Form(None)
) -> dict[str, Any]:
    """Import uploaded SillyTavern files; all are checked before anything is written."""
    home = home_of(request)
    if not files:
        raise BadInput("没有收到文件（no files）")
    if not card and any((upload.filename or "").lower().endswith(".jsonl") for upload in files):
        raise BadInput("聊天记录属于哪张卡？请先在「聊天记录导入到」里选一张（pick the card this chat belongs to）")
    with tempfile.TemporaryDirectory(prefix="pear-upload-") as scratch:
        paths: list[Path] = []
        for upload in files:
            name = sanitize_name(Path(upload.filename or "").name) or "upload"
            target = Path(scratch) / name
            await save_upload(upload, target)
            paths.append(target)
        try:
            _plan, written = imports.import_files(home, paths, book=imports.book_choice(book), card=card or None)
        except PearError as error:  # name the uploaded file, never the server's scratch folder
            if error.path and Path(error.path).is_relative_to(scratch):
                raise type(error)(error.message, path=Path(error.path).name) from None
            raise
    return {"written": [str(p.relative_to(home.root)) for p in written if p.is_relative_to(home.root)]}


@router.get("/cards/{name}")
def card_detail(request: Request, name: str) -> dict[str, Any]:
    folder = open_card(home_of(request), name)
    card = folder.load_card()
    if card is None:
        raise NotFound("没有角色卡文件", path=folder.path)
    data = card.data
    return {
        "folder": folder.folder,
        "name": card.name,
        "fields": {k: data.get(k, "") for k in ("description", "personality", "scenario", "first_mes", "mes_example")},
        "alternate_greetings": data.get("alternate_greetings", []),
        "lorebooks": folder.lorebooks(),
    }
