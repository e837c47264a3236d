"""``/api/studio/{card}``: the card studio — fields, greetings, lorebook entries, the supplement book
and the ``创作/`` slots (one file per slot, a syntax check, apply back into the card).

Card HTML (greetings) is returned as text; the page shows it only inside a sandboxed iframe.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.errors import BadInput, NotFound
from peargarden.workspace import atomic
from peargarden.workspace.card_project import MANIFEST, CardProject
from peargarden.workspace.cards import open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.library import read_library_lorebook

from .deps import home_of

router = APIRouter(prefix="/api")

CARD_FIELDS = ("description", "personality", "scenario", "first_mes", "mes_example", "creator_notes",
               "system_prompt", "post_history_instructions")  # fmt: skip


def _keys(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(k) for k in value if str(k).strip()]
    if isinstance(value, str) and value.strip():
        return [k.strip() for k in value.split(",") if k.strip()]
    return []


def _entries(book: dict[str, Any]) -> list[dict[str, Any]]:
    raw = book.get("entries")
    items = raw.values() if isinstance(raw, dict) else (raw if isinstance(raw, list) else [])
    rows = []
    for entry in items:
        if not isinstance(entry, dict):
            continue
        rows.append(
            {
                "uid": entry.get("uid"),
                "comment": str(entry.get("comment") or ""),
                "keys": _keys(entry.get("key", entry.get("keys"))),
                "secondary": _keys(entry.get("keysecondary", entry.get("secondary_keys"))),
                # Blue (constant, always sent) or green (sent when a key matches), as SillyTavern draws them.
                "kind": "constant" if entry.get("constant") else "keyword",
                "order": entry.get("order", entry.get("insertion_order", 100)),
                "disabled": bool(entry.get("disable")) or entry.get("enabled") is False,
                "content": str(entry.get("content") or ""),
            }
        )
    rows.sort(key=lambda r: (r["order"] if isinstance(r["order"], int | float) else 100, str(r["uid"])))
    return rows


def _project(folder: Any) -> dict[str, Any]:
    project = CardProject(folder)
    manifest_path = project.root / MANIFEST
    if not manifest_path.is_file():
        return {"expanded": False}
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    slots = []
    for slot_id, info in manifest["slots"].items():
        path = project.root / info["file"]
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        slots.append({"id": slot_id, "kind": info["kind"], "label": info["label"], "file": info["file"], "text": text})
    return {"expanded": True, "slots": slots, "check": project.check().to_json()}


@router.get("/studio/{card}")
def studio(request: Request, card: str) -> dict[str, Any]:
    home = home_of(request)
    folder = open_card(home, card)
    loaded = folder.load_card()
    data = loaded.data
    settings = folder.effective_settings(load_settings(home.config_file))
    books = []
    for name in settings.lorebooks:
        try:
            books.append({"name": name, "supplement": False, "entries": _entries(read_library_lorebook(home, name))})
        except (NotFound, BadInput) as error:
            books.append({"name": name, "supplement": False, "entries": [], "error": str(error)})
    supplement = folder.supplement_book_file
    if supplement.is_file():
        try:
            value = json.loads(supplement.read_text(encoding="utf-8"))
            books.append({"name": supplement.stem, "supplement": True, "entries": _entries(value)})
        except (OSError, ValueError) as error:
            books.append({"name": supplement.stem, "supplement": True, "entries": [], "error": str(error)})
    else:
        books.append({"name": supplement.stem, "supplement": True, "entries": []})
    alternates = data.get("alternate_greetings")
    return {
        "folder": folder.folder,
        "name": loaded.name,
        "fields": {name: str(data.get(name) or "") for name in CARD_FIELDS},
        "greetings": [str(data.get("first_mes") or "")]
        + ([str(g) for g in alternates if isinstance(g, str)] if isinstance(alternates, list) else []),
        "lorebooks": books,
        "project": _project(folder),
    }


@router.post("/studio/{card}/expand")
def expand(request: Request, card: str) -> dict[str, Any]:
    """Expand the card into ``创作/`` (one file per slot)."""
    folder = open_card(home_of(request), card)
    written = CardProject(folder).expand()
    return {"written": written, "project": _project(folder)}


class SlotBody(BaseModel):
    file: str
    text: str


@router.post("/studio/{card}/slot")
def save_slot(request: Request, card: str, body: SlotBody) -> dict[str, Any]:
    """Save one slot file and check the project (scripts and regexes get a syntax check)."""
    folder = open_card(home_of(request), card)
    project = CardProject(folder)
    manifest = json.loads((project.root / MANIFEST).read_text(encoding="utf-8")) if (
        project.root / MANIFEST).is_file() else None  # fmt: skip
    files = {info["file"] for info in manifest["slots"].values()} if manifest else set()
    if body.file not in files:
        raise NotFound(f"创作/ 里没有这个槽位文件：{body.file}")
    atomic.write_text(project.root / body.file, body.text)
    return project.check().to_json()


@router.post("/studio/{card}/apply")
def apply(request: Request, card: str) -> dict[str, Any]:
    """Write the changed slots back into the card (refused while a check finds problems)."""
    folder = open_card(home_of(request), card)
    changes = CardProject(folder).apply()
    return {"applied": [c.label for c in changes], "project": _project(folder)}
