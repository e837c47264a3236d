"""``/api/regex/{card}``: the card's regex scripts (``data.extensions.regex_scripts``) — read, add,
change any field of SillyTavern's regex editor, delete.  The on/off switch stays at
``/api/tavern/{card}/regex``.  The card file is written atomically in its own format (a PNG keeps its
image bytes); open chats of the card show their messages with the new scripts at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.cards import card_scripts, change_scripts
from peargarden.formats.regex_edit import add_script, delete_script, update_script

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")


@router.get("/regex/{card}")
def scripts(request: Request, card: str) -> dict[str, Any]:
    return card_scripts(home_of(request), card)


def _save(request: Request, card: str, change: Callable[[list[Any]], list[Any]]) -> dict[str, Any]:
    result = change_scripts(home_of(request), card, change)
    hub_of(request).card_changed(card)
    return result


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
