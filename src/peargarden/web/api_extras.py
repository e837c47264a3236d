"""``/extras`` and ``/api/extras``: the page of the features beside the chat (voices, pictures,
expressions, translation, themes) and their settings; ``GET /api/chats/{card}/{chat}/extras`` is what
the chat page's features read as they start (the settings, the chat's translations …), one answer.

``GET /api/extras/settings`` answers every feature's table of config.toml (``has_key`` says whether a
key is stored, never the key); ``POST /api/extras/settings/{table}`` changes keys of one table (checked
whole first); ``POST /api/extras/keys/{feature}`` stores a back end's key (an empty one forgets it).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from peargarden.app import GroupSession
from peargarden.app.extras import all_settings, save_key, save_settings, save_workflow

from .api_expressions import sprite_rows
from .api_translate import kept_translations
from .deps import home_of, templates_of
from .extras_chats import both, chat_of

router = APIRouter()


@router.get("/extras", response_class=HTMLResponse)
def extras_page(request: Request) -> HTMLResponse:
    return templates_of(request).TemplateResponse(request, "extras.html", {})


@router.get("/api/extras/settings")
def settings(request: Request) -> dict[str, Any]:
    return all_settings(home_of(request))


@router.post("/api/extras/settings/{table}")
def change(request: Request, table: str, values: dict[str, Any]) -> dict[str, Any]:
    return save_settings(home_of(request), table, values)


@router.get(both("/extras")[0])
@router.get(both("/extras")[1])
def chat_extras(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    """What the chat page's features read as they start, in one answer (the card's chat page carries
    it): the settings, the chat's kept translations, the sprites of each card that speaks in it."""
    home = home_of(request)
    session = chat_of(request, card, chat_id).session
    found = all_settings(home)
    # A group chat: its members' cards.
    cards = [member.card for member in session.roster()] if isinstance(session, GroupSession) else [session.card.folder]
    return {
        "settings": found,
        "translations": kept_translations(session) if found["translate"]["backend"] else {},
        "sprites": {folder: sprite_rows(home, folder) for folder in cards},
    }


class WorkflowBody(BaseModel):
    name: str
    text: str


@router.post("/api/extras/comfy-workflow")
def workflow(request: Request, body: WorkflowBody) -> dict[str, str]:
    """A ComfyUI workflow file (API format) kept in the data folder and put in ``[pictures] workflow``."""
    return {"workflow": save_workflow(home_of(request), body.name, body.text)}


class KeyBody(BaseModel):
    key: str = ""


@router.post("/api/extras/keys/{feature}")
def store(request: Request, feature: str, body: KeyBody) -> dict[str, bool]:
    save_key(home_of(request), feature, body.key)
    return {"has_key": bool(body.key.strip())}
