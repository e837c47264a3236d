"""The card project ``创作/`` for the fronts (``pear card``, the web's card studio): the card expanded
into one file per slot, checked (syntax of scripts and regexes), applied back into the card file,
undone — :mod:`peargarden.modes.work.project` — and the slots as the studio shows them."""

from __future__ import annotations

import json
from typing import Any

from peargarden.errors import NotFound
from peargarden.formats import replace_lone_surrogates
from peargarden.modes.work.project import MANIFEST, CardProject, read_slot_text
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.home import Home

__all__ = ["CardProject", "open_project", "project_view", "save_slot"]


def open_project(home: Home, card: str) -> CardProject:
    """The project of card *card* (its folder ``创作/`` may not exist yet: expand makes it)."""
    return CardProject(open_card(home, card))


def _manifest(project: CardProject) -> dict[str, Any] | None:
    path = project.root / MANIFEST
    if not path.is_file():
        return None
    value = json.loads(path.read_text(encoding="utf-8"))
    return value if isinstance(value, dict) else None


def project_view(folder: CardFolder) -> dict[str, Any]:
    """The studio's view of the project: each slot's file and text, and the check's report."""
    project = CardProject(folder)
    manifest = _manifest(project)
    if manifest is None:
        return {"expanded": False}
    slots = []
    for slot_id, info in manifest["slots"].items():
        path = project.root / info["file"]
        # A lone surrogate cannot travel in a JSON response: shown (and saved back, if edited) as U+FFFD.
        text = replace_lone_surrogates(read_slot_text(path)) if path.is_file() else ""
        slots.append({"id": slot_id, "kind": info["kind"], "label": info["label"], "file": info["file"], "text": text})
    return {"expanded": True, "slots": slots, "check": project.check().to_json()}


def save_slot(home: Home, card: str, file: str, text: str) -> dict[str, Any]:
    """Write one slot file of the project (only a file the manifest lists) and check the project."""

    project = open_project(home, card)
    manifest = _manifest(project)
    files = {info["file"] for info in manifest["slots"].values()} if manifest else set()
    if file not in files:
        raise NotFound(f"创作/ 里没有这个槽位文件：{file}")
    atomic.write_text(project.root / file, text)
    return project.check().to_json()
