"""``/api/regex/{card}``: the card's regex scripts (``data.extensions.regex_scripts``) — read, add,
change any field of SillyTavern's regex editor, delete.  The on/off switch stays at
``/api/tavern/{card}/regex``.  The card file is written atomically in its own format (a PNG keeps its
image bytes); open chats of the card show their messages with the new scripts at once."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.formats.regex_edit import add_script, delete_script, update_script
from peargarden.modes.work.project import write_card
from peargarden.workspace.cards import open_card

from .api_chat import hub_of
from .deps import home_of

router = APIRouter(prefix="/api")


def _scripts(data: dict[str, Any]) -> list[Any]:
    extensions = data.get("extensions")
    scripts = extensions.get("regex_scripts") if isinstance(extensions, dict) else None
    return scripts if isinstance(scripts, list) else []


@router.get("/regex/{card}")
def scripts(request: Request, card: str) -> dict[str, Any]:
    data = open_card(home_of(request), card).load_card().data
    return {"card": card, "scripts": [{"index": i, "script": s} for i, s in enumerate(_scripts(data))
                                      if isinstance(s, dict)]}  # fmt: skip


def _save(request: Request, card: str, change: Any) -> dict[str, Any]:
    folder = open_card(home_of(request), card)
    loaded = folder.load_card()
    new = change(_scripts(loaded.data))
    extensions = loaded.data.get("extensions")
    if not isinstance(extensions, dict):
        extensions = loaded.data["extensions"] = {}
    extensions["regex_scripts"] = new
    write_card(folder, loaded)
    hub_of(request).card_changed(card)
    return scripts(request, card)


class ScriptBody(BaseModel):
    fields: dict[str, Any] = {}
    name: str | None = None  # the name the page saw; another name there now is 409


@router.post("/regex/{card}")
def new_script(request: Request, card: str, body: ScriptBody) -> dict[str, Any]:
    return _save(request, card, lambda current: add_script(current, body.fields))


@router.post("/regex/{card}/{index}")
def edit_script(request: Request, card: str, index: int, body: ScriptBody) -> dict[str, Any]:
    return _save(request, card, lambda current: update_script(current, index, body.fields, body.name))


@router.post("/regex/{card}/{index}/delete")
def remove_script(request: Request, card: str, index: int, body: ScriptBody) -> dict[str, Any]:
    return _save(request, card, lambda current: delete_script(current, index, body.name))
