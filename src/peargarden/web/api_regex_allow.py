"""``/api/cards/{card}/regex-allowance``: may the card's own regex scripts run?

SillyTavern runs a card's ``extensions.regex_scripts`` only for cards the user allowed, and asks once
when such a card arrives.  The chat page asks the same once (the first time the card is played here
and no answer is stored) and offers a switch afterwards; the answer is the card's ``卡.json``
``regex_allowed`` (see :mod:`peargarden.workspace.regex_scripts`), read by tavern and stage assembly.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.workspace.cards import open_card
from peargarden.workspace.regex_scripts import (
    card_regex_scripts,
    regex_allowance,
    regex_question,
    set_regex_allowance,
)

from .api_chat import hub_of
from .deps import home_of

router = APIRouter(prefix="/api")


def _state(request: Request, card: str) -> dict[str, Any]:
    folder = open_card(home_of(request), card)
    loaded = folder.load_card()
    scripts = card_regex_scripts(loaded)
    return {
        "card": folder.folder,
        "scripts": [str(s.get("scriptName") or "") for s in scripts],
        "allowed": regex_allowance(folder),
        "question": regex_question(loaded) if scripts else "",
    }


@router.get("/cards/{card}/regex-allowance")
def get_allowance(request: Request, card: str) -> dict[str, Any]:
    return _state(request, card)


class AllowanceBody(BaseModel):
    allowed: bool


@router.post("/cards/{card}/regex-allowance")
def set_allowance(request: Request, card: str, body: AllowanceBody) -> dict[str, Any]:
    folder = open_card(home_of(request), card)
    set_regex_allowance(folder, body.allowed)
    hub_of(request).card_changed(folder.folder)  # open chats use the answer from the next request
    return _state(request, card)
