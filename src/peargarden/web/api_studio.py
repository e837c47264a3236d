"""``/api/studio/{card}``: the card studio — fields, greetings, lorebook entries, the supplement book
and the ``创作/`` slots (one file per slot, a syntax check, apply back into the card).

Card HTML (greetings) is returned as text; the page shows it only inside a sandboxed iframe.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app import cards

from .deps import home_of

router = APIRouter(prefix="/api")


@router.get("/studio/{card}")
def studio(request: Request, card: str) -> dict[str, Any]:
    return cards.studio_view(home_of(request), card)


@router.post("/studio/{card}/expand")
def expand(request: Request, card: str) -> dict[str, Any]:
    """Expand the card into ``创作/`` (one file per slot)."""
    return cards.expand_project(home_of(request), card)


class SlotBody(BaseModel):
    file: str
    text: str


@router.post("/studio/{card}/slot")
def save_slot(request: Request, card: str, body: SlotBody) -> dict[str, Any]:
    """Save one slot file and check the project (scripts and regexes get a syntax check)."""
    return cards.save_slot(home_of(request), card, body.file, body.text)


@router.post("/studio/{card}/apply")
def apply(request: Request, card: str) -> dict[str, Any]:
    """Write the changed slots back into the card (refused while a check finds problems)."""
    return cards.apply_project(home_of(request), card)


class LoreBody(BaseModel):
    book: str
    supplement: bool = False
    fp: str | None = None  # the entry to change (its content fingerprint); None adds a new entry
    comment: str | None = None
    keys: list[str] | None = None
    content: str | None = None
    order: int | None = None
    constant: bool | None = None
    disabled: bool | None = None


@router.post("/studio/{card}/lore")
def save_lore(request: Request, card: str, body: LoreBody) -> dict[str, Any]:
    """Change one lorebook entry (title, keys, content, order, constant/keyword, on/off), or add one to
    the card's supplement book.  The book file is written atomically; the next beat reads it."""
    home = home_of(request)
    cards.save_lore_entry(home, card, body.book, supplement=body.supplement, fp=body.fp,
                                 comment=body.comment, keys=body.keys, content=body.content, order=body.order,
                                 constant=body.constant, disabled=body.disabled)  # fmt: skip
    return cards.studio_view(home, card)
