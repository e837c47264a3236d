"""``/api/cards`` and ``/api/import``: the card grid, avatars and imports by upload."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from peargarden.app import library, sanitize_name
from peargarden.app.cards import Picture, Size, card_picture
from peargarden.app.library import CardRow, card_rows, open_card, search_cards, set_marks
from peargarden.errors import BadInput, NotFound, PearError
from peargarden.formats import MAX_INPUT_BYTES

from .deps import home_of

router = APIRouter(prefix="/api")

def card_json(row: CardRow) -> dict[str, Any]:
    """One card of the list (a damaged card is listed with its error: it never hides the others)."""
    return {
        "folder": row.folder,
        "name": row.name,
        "lorebooks": row.lorebooks,
        "chats": row.chats,
        "avatar": f"/api/cards/{quote(row.folder, safe='')}/avatar?size=tile",
        "error": row.error,
        "creator": row.creator,
        "notes": row.notes,
        "tags": row.tags,
        "own_tags": row.own_tags,
        "favorite": row.favorite,
        "added": row.added,
        "last_chat": row.last_chat,
    }


@router.get("/cards")
def cards(request: Request, q: str = "", tag: str = "", fav: bool = False, sort: str = "name") -> list[dict[str, Any]]:
    """The cards, searched (``q``: words in the name, creator, tags or creator notes), filtered (``tag``,
    ``fav``) and sorted (``sort`` = ``name`` | ``last_chat`` | ``added``; favourites first)."""
    rows = search_cards(card_rows(home_of(request)), q, tag=tag, favorites=fav, sort=sort)
    return [card_json(row) for row in rows]


class MarksBody(BaseModel):
    favorite: bool | None = None
    tags: list[str] | None = Field(None, max_length=200)


@router.post("/cards/{name}/marks")
def marks(request: Request, name: str, body: MarksBody) -> dict[str, Any]:
    """Mark the card a favourite (or not) and/or give it the user's own tags (kept in ``卡.json``)."""
    folder = open_card(home_of(request), name)
    return card_json(set_marks(folder, tags=body.tags, favorite=body.favorite))


@router.get("/cards/{name}/avatar")
def avatar(request: Request, name: str, size: Size | None = None) -> Response:
    """The card's picture: as it is, or ``size`` = ``thumb`` (a message's head, 96 px) or ``tile`` (the
    card grid's, 256 × 384), WebP; the placeholder for a card without one."""
    return picture_response(request, card_picture(home_of(request), name, size))


def picture_response(request: Request, picture: Picture) -> Response:
    """A picture, or ``304`` when the browser has this version (it asks again on every page)."""
    headers = {"Cache-Control": "no-cache", "ETag": picture.etag}
    if request.headers.get("if-none-match") == picture.etag:
        return Response(status_code=304, headers=headers)
    return Response(picture.data, media_type=picture.media_type, headers=headers)


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


@router.post("/import", response_model=None)
async def import_files(
    request: Request,
    files: list[UploadFile],
    book: str = Form("mount"),
    card: str | None = Form(None),
    on_conflict: str = Form("ask"),
) -> dict[str, Any] | JSONResponse:
    """Import uploaded SillyTavern files; all are checked before anything is written.  A card that is
    here already is asked about (409 with ``conflicts``), then imported again with ``on_conflict`` =
    ``replace`` (in its place, chats kept; a vault snapshot first) or ``copy`` (beside it)."""
    choice = library.conflict_choice(on_conflict)
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
            _plan, written = library.import_files(home, paths, book=library.book_choice(book), card=card or None,
                                                  on_conflict=choice)  # fmt: skip
        except library.CardExists as exists:
            return JSONResponse({"error": exists.message, "conflicts": exists.names}, status_code=409)
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
