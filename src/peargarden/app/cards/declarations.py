"""Preset declaration for the fronts: declare a library preset into a card's prompt files (each
block labelled with a station — cached labels first, then labels the user gives, then the side
model), change one block's label, take the declaration off again, and what the preset panel shows.

The work itself is :mod:`peargarden.modes.stage.preset` (disk, cache, routing) over
:mod:`peargarden.declare` (pure); this module builds the side-model labeller when one is needed and
says each block's place in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peargarden.declare import STATIONS, STATUS_TEXT
from peargarden.modes.stage.preset import (
    DeclareResult,
    Labeller,
    active_preset,
    declare_preset,
    preset_labels,
    provider_labeller,
    relabel,
    remove_declaration,
)
from peargarden.workspace.cards import open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.library import list_preset_names

from ..settings.connections import resolve_side
from ..settings.stored_keys import with_stored_key

__all__ = [
    "DeclareResult",
    "block_places",
    "declare",
    "labels",
    "panel",
    "relabel_block",
    "remove",
    "side_labeller",
    "stations",
]


def stations() -> list[dict[str, str]]:
    """The seven stations a block can go to: id, label, what it means, where it ends up."""
    return [
        {"id": key, "label": info.label, "about": info.meaning, "goes_to": info.destination}
        for key, info in STATIONS.items()
    ]


def panel(home: Home, card: str) -> dict[str, Any]:
    """The preset panel of *card*: the library's presets, the card's active one, the stations."""
    folder = open_card(home, card)
    return {"presets": list_preset_names(home), "active": active_preset(folder), "stations": stations()}


def declare(home: Home, card: str, preset: str, given: Sequence[dict[str, Any]] | None = None) -> DeclareResult:
    """Declare *preset* for *card* and make it the card's active preset.  With *given* labels
    (``[{"id", "station"}]``) no model is called; otherwise blocks without a cached label go to the
    side model (the chat's own model when none is configured)."""
    labeller = side_labeller(home) if given is None else None
    return declare_preset(home, card, preset, labeller=labeller, given=given)


def side_labeller(home: Home) -> Labeller:
    """The side model (``[side_model]``, else the main one) as the preset declaration's labeller."""
    # The model clients only when the side model may be asked.

    side = resolve_side(with_stored_key(home, load_settings(home.config_file)), None)
    return provider_labeller(side.provider, side.model)


def relabel_block(home: Home, preset: str, card: str, block_id: str, station: str) -> DeclareResult:
    """The user's own station for one block; the card's files are routed again."""
    return relabel(home, preset, card, block_id, station)


def remove(home: Home, card: str) -> list[str]:
    """Take the declared preset's entries out of the card again; the files that changed."""
    return remove_declaration(home, card)


def labels(home: Home, preset: str) -> list[dict[str, Any]]:
    """The cached labels of *preset* (shared by every card)."""
    return preset_labels(home, preset)


def block_places(result: DeclareResult) -> list[tuple[str, str]]:
    """Each block of a declaration and where it went, in words: its station, or why it was not taken."""
    places = []
    for block in result.compiled.blocks:
        station = result.labels.stations.get(block.id)
        places.append((block.id, f"{station} {STATIONS[station].label}" if station else STATUS_TEXT[block.status]))
    return places
