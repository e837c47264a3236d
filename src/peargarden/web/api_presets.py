"""``/api/presets/{card}``: the preset panel — declare a library preset for a card (the side model
labels each block), see the label of every block, change one (re-routes the card), take it off.

A thin front over :mod:`peargarden.modes.stage.preset`; the preset JSON itself is never changed.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.service import PearApp
from peargarden.declare import STATIONS
from peargarden.modes.stage.preset import declare_preset, relabel, remove_declaration
from peargarden.workspace.cards import open_card
from peargarden.workspace.library import list_preset_names

from .deps import home_of

router = APIRouter(prefix="/api")


def _stations() -> list[dict[str, str]]:
    return [
        {"id": key, "label": info.label, "about": info.meaning, "goes_to": info.destination}
        for key, info in STATIONS.items()
    ]


@router.get("/presets/{card}")
def presets(request: Request, card: str) -> dict[str, Any]:
    home = home_of(request)
    folder = open_card(home, card)
    active = folder.settings().get("preset")
    return {"presets": list_preset_names(home), "active": active if isinstance(active, str) else "",
            "stations": _stations()}  # fmt: skip


@router.post("/presets/{card}/{stem}/declare")
def declare(request: Request, card: str, stem: str) -> dict[str, Any]:
    """Label the preset's blocks (cached labels first; the side model only for new blocks) and route them."""
    home = home_of(request)
    return declare_preset(home, card, stem, labeller=PearApp(home).side_labeller()).to_json()


class RelabelBody(BaseModel):
    piece: str
    station: str


@router.post("/presets/{card}/{stem}/relabel")
def change_label(request: Request, card: str, stem: str, body: RelabelBody) -> dict[str, Any]:
    """The user's own label for one block; the card's files are routed again."""
    return relabel(home_of(request), stem, card, body.piece, body.station).to_json()


@router.post("/presets/{card}/remove")
def remove(request: Request, card: str) -> dict[str, Any]:
    """Take the declared preset off the card (its files go back to what they were)."""
    return {"restored": remove_declaration(home_of(request), card)}
