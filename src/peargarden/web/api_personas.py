"""``/api/personas``: who the user plays — the library's personas (``library/personas/``): add or
change one, give it a picture, delete it (a vault snapshot first), and switch the persona of an open
chat.  A chat picks one when it starts (``POST /api/chats/{card}`` with ``persona``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, Field

from peargarden.app import sanitize_name
from peargarden.app.cards import Size, persona_picture
from peargarden.app.library import delete_persona as delete_files
from peargarden.app.library import load_persona, persona_avatar, persona_names, save_avatar
from peargarden.app.library import save_persona as save_text
from peargarden.errors import BadInput, NotFound

from .api_cards import picture_response
from .api_chat import _idle, chat_state
from .deps import home_of, hub_of

router = APIRouter(prefix="/api")

AVATAR_LIMIT = 8 * 1024 * 1024  # a persona picture larger than this is refused, read no further
_IMAGE_MAGIC = ((b"\x89PNG\r\n\x1a\n", ".png"), (b"\xff\xd8\xff", ".jpg"), (b"GIF87a", ".gif"), (b"GIF89a", ".gif"))


def _names(request: Request) -> list[str]:
    return persona_names(home_of(request).personas_dir)


@router.get("/personas")
def personas(request: Request) -> list[dict[str, Any]]:
    folder = home_of(request).personas_dir
    found = []
    for stem in _names(request):
        persona = load_persona(folder, stem)
        avatar = persona_avatar(folder, stem)
        found.append({"name": persona.name, "description": persona.description,
                      "avatar": f"/api/personas/{stem}/avatar" if avatar else None})  # fmt: skip
    return found


class PersonaBody(BaseModel):
    name: str = Field(max_length=1000)  # persona_name says the real limit, in its own words
    description: str = Field("", max_length=200_000)


def _stem(name: str) -> str:
    stem = sanitize_name(name.strip())
    if not stem:
        raise BadInput(f"人设名不合法：{name!r}")
    return stem


@router.post("/personas")
def save_persona(request: Request, body: PersonaBody) -> dict[str, Any]:
    """Add a persona, or change the description of one (``library/personas/<name>.json``)."""
    name = save_text(home_of(request).personas_dir, body.name, body.description.strip())  # checked as card names
    return {"name": name, "description": body.description.strip()}


def _existing(request: Request, name: str) -> str:
    stem = _stem(name)
    if stem not in _names(request):
        raise NotFound(f"没有人设「{name}」（no such persona）")
    return stem


@router.post("/personas/{name}/delete")
def delete_persona(request: Request, name: str) -> dict[str, Any]:
    """Delete a persona and its picture; the vault keeps a snapshot first (restore it from /vault).
    Chats that played it keep its name."""
    _existing(request, name)
    return delete_files(home_of(request), name)


@router.get("/personas/{name}/avatar")
def avatar(request: Request, name: str, size: Size | None = None) -> Response:
    """The persona's picture, as it is or ``size`` = ``thumb`` (as the card's)."""
    return picture_response(request, persona_picture(home_of(request), _stem(name), size))


def _image_suffix(head: bytes) -> str | None:
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return ".webp"
    return next((suffix for magic, suffix in _IMAGE_MAGIC if head.startswith(magic)), None)


@router.post("/personas/{name}/avatar")
async def set_avatar(request: Request, name: str, file: UploadFile) -> dict[str, Any]:
    """The persona's picture (PNG, JPEG, WebP or GIF, at most 8 MiB), replacing the one it had."""
    folder = home_of(request).personas_dir
    stem = _existing(request, name)
    data = bytearray()
    while chunk := await file.read(64 * 1024):
        data += chunk
        if len(data) > AVATAR_LIMIT:
            raise BadInput(f"头像太大（超过 {AVATAR_LIMIT // (1024 * 1024)} MiB）：{file.filename}")
    suffix = _image_suffix(bytes(data[:16]))
    if suffix is None:
        raise BadInput(f"不是 PNG / JPEG / WebP / GIF 图片：{file.filename}")
    save_avatar(folder, stem, bytes(data), suffix)
    return {"name": name, "avatar": f"/api/personas/{stem}/avatar"}


class SwitchBody(BaseModel):
    persona: str


@router.post("/chats/{card}/{chat_id}/persona")
def switch_persona(request: Request, card: str, chat_id: str, body: SwitchBody) -> dict[str, Any]:
    """Play another persona in this chat from the next message on (recorded on the branch)."""
    chat = _idle(hub_of(request).chat(card, chat_id))
    _existing(request, body.persona)
    chat.session.set_persona(body.persona)
    return chat_state(chat)
