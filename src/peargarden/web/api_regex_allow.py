"""``/api/cards/{card}/regex-allowance``: may the card's own regex scripts run?

SillyTavern runs a card's ``extensions.regex_scripts`` only for cards the user allowed, and asks once
when such a card arrives.  The chat page asks the same once (the first time the card is played here
and no answer is stored) and offers a switch afterwards; the answer is read by tavern and stage
assembly (see :mod:`peargarden.app.cards.regex_allowance`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.cards import allowance_state, set_allowance

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")


@router.get("/cards/{card}/regex-allowance")
def get_allowance(request: Request, card: str) -> dict[str, Any]:
    return allowance_state(home_of(request), card)


class AllowanceBody(BaseModel):
    allowed: bool


@router.post("/cards/{card}/regex-allowance")
def post_allowance(request: Request, card: str, body: AllowanceBody) -> dict[str, Any]:
    folder = set_allowance(home_of(request), card, body.allowed)
    hub_of(request).card_changed(folder)  # open chats use the answer from the next request
    return allowance_state(home_of(request), card)
