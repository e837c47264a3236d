"""``/api/studio/{card}``: the card studio — fields, greetings, lorebook entries, the supplement book
and the ``创作/`` slots (one file per slot, a syntax check, apply back into the card).

Card HTML (greetings) is returned as text; the page shows it only inside a sandboxed iframe.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.json_files import JsonStyle, detect_style
from peargarden.errors import BadInput, NotFound
from peargarden.formats import replace_lone_surrogates
from peargarden.modes.work.project import MANIFEST, CardProject, read_slot_text
from peargarden.stage.lore.book import (
    SUPPLEMENT_UID_START,
    add_book_entry,
    find_book_entry,
    new_supplement_book,
    update_book_entry,
)
from peargarden.stage.lore.entries import fingerprint
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card
from peargarden.workspace.config import load_settings
from peargarden.workspace.library import lorebook_path, read_library_lorebook

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
                "fp": fingerprint(str(entry.get("content") or "").replace("\r\n", "\n")),
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
        # A lone surrogate cannot travel in a JSON response: shown (and saved back, if edited) as U+FFFD.
        text = replace_lone_surrogates(read_slot_text(path)) if path.is_file() else ""
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
    folder = open_card(home, card)
    path = folder.supplement_book_file if body.supplement else lorebook_path(home, body.book)
    style = JsonStyle()  # a new supplement book: tab-indented, like the books the stage writes
    if path.is_file():
        try:
            original = path.read_bytes().decode("utf-8")  # not read_text: CRLF must stay visible
            book = json.loads(original)
            style = detect_style(original, style)  # a small edit stays a small diff
        except (OSError, ValueError) as error:
            raise BadInput(f"世界书读不出来：{error}", path=path) from None
    elif body.supplement:
        book = new_supplement_book()
    else:
        raise NotFound(f"世界书库里没有「{body.book}」")
    if body.fp is None:
        if not body.supplement:
            raise BadInput("新条目只能加进这张卡的补充设定集")
        if not (body.content or "").strip():
            raise BadInput("条目内容是空的")
        added = add_book_entry(book, title=body.comment or "", keys=body.keys or [], content=body.content or "",
                               constant=bool(body.constant), uid_start=SUPPLEMENT_UID_START)  # fmt: skip
        if added is None:
            raise BadInput("内容与已有条目重复，未写入")
        book = added[0]
        fp = fingerprint((body.content or "").strip())
    else:
        if body.content is not None and not body.content.strip():
            raise BadInput("条目内容是空的")
        updated = update_book_entry(book, body.fp, title=body.comment, keys=body.keys, content=body.content,
                                    constant=body.constant)  # fmt: skip
        if updated is None:
            raise NotFound("没有这个条目（可能已被改过，请刷新）")
        book = updated
        fp = fingerprint(body.content.strip()) if body.content is not None else body.fp
    found = find_book_entry(book, fp)
    if found is not None:
        entry = found[1]
        if body.order is not None:
            entry["order"] = body.order
        if body.disabled is not None:
            entry["disable"] = body.disabled
    atomic.write_text(path, style.dumps(book))
    return studio(request, card)
