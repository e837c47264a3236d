"""``/api/presets/{card}``: the preset panel — declare a library preset for a card (the side model
labels each block), see the label of every block, change one (re-routes the card), take it off.

A thin front over :mod:`peargarden.app.cards.declarations`; the preset JSON itself is never changed.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.cards import declare_preset, preset_panel, relabel_block, remove_declaration

from .deps import home_of

router = APIRouter(prefix="/api")


@router.get("/presets/{card}")
def presets(request: Request, card: str) -> dict[str, Any]:
    return preset_panel(home_of(request), card)


@router.post("/presets/{card}/{stem}/declare")
def declare(request: Request, card: str, stem: str) -> dict[str, Any]:
    """Label the preset's blocks (cached labels first; the side model only for new blocks) and route them."""
    return declare_preset(home_of(request), card, stem).to_json()


class RelabelBody(BaseModel):
    piece: str
    station: str


@router.post("/presets/{card}/{stem}/relabel")
def change_label(request: Request, card: str, stem: str, body: RelabelBody) -> dict[str, Any]:
    """The user's own label for one block; the card's files are routed again."""
    return relabel_block(home_of(request), stem, card, body.piece, body.station).to_json()


@router.post("/presets/{card}/remove")
def remove(request: Request, card: str) -> dict[str, Any]:
    """Take the declared preset off the card (its files go back to what they were)."""
    return {"restored": remove_declaration(home_of(request), card)}
