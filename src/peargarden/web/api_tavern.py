"""``/api/tavern/{card}``: tavern-mode controls — prompt order and switches, context size and
response length, pinned examples, the Author's Note (per chat), the card's regex scripts, and the
history-space warning of a dry run.

Changes go through :mod:`peargarden.app.cards.tavern_controls` (``apply_control``) into the card's ``卡.json``
(``"tavern"``): the card-level values win over the active preset, and the preset file itself is never
written from here.  The Author's Note of a chat lives in that chat's metadata.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.cards import set_panel_control, switch_card_regex, tavern_panel

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")


@router.get("/tavern/{card}")
def controls(request: Request, card: str, chat: str | None = None) -> dict[str, Any]:
    return tavern_panel(home_of(request), card, chat)


class RegexBody(BaseModel):
    index: int  # the script's place in the card's extensions.regex_scripts
    enabled: bool
    name: str | None = None  # when given, must still be the script's name (the card may have changed)
    chat: str | None = None


@router.post("/tavern/{card}/regex")
def switch_regex(request: Request, card: str, body: RegexBody) -> dict[str, Any]:
    """Switch one of the card's regex scripts on or off: ``disabled`` of that script in the card file,
    as SillyTavern stores it (a PNG card keeps its image bytes).  Open chats of the card follow."""
    switch_card_regex(home_of(request), card, body.index, body.enabled, body.name)
    hub_of(request).card_changed(card)
    return controls(request, card, body.chat)


class ControlBody(BaseModel):
    key: str
    value: str
    chat: str | None = None


@router.post("/tavern/{card}")
def set_control(request: Request, card: str, body: ControlBody) -> dict[str, Any]:
    """One control (the keys of ``pear tavern set``); the Author's Note goes to the chat when given."""
    where = set_panel_control(home_of(request), card, body.key, body.value, body.chat)
    return {"key": body.key, "where": where, "controls": controls(request, card, body.chat)}
