"""``/api/lore``: the lorebook editor — every library book and every card's supplement book.

Books: list (with the cards that mount each), create, delete (a vault snapshot first, then unmounted
from every card), mount and unmount on a card.  Entries: read, add, change any field SillyTavern's
world-info editor has, delete.  Entry edits follow :mod:`peargarden.formats.lorebook_edit` (stored as
SillyTavern's editor stores them, unknown fields kept); the file is written back atomically in its own
JSON style.  A book is addressed as ``book/<name>`` (library) or ``supplement/<card>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats.lorebook_edit import add_entry, delete_entry, entry_fingerprint, update_entry
from peargarden.stage.lore.book import SUPPLEMENT_UID_START
from peargarden.workspace.cards import list_cards, lorebook_mounts, mount_lorebook, open_card, unmount_lorebook
from peargarden.workspace.library import list_lorebook_names, lorebook_name, lorebook_path
from peargarden.workspace.vault import Vault

from ._json_style import JsonStyle, read_json_file, write_json_file
from .deps import home_of

router = APIRouter(prefix="/api")

Kind = Literal["book", "supplement"]
# SillyTavern's server writes a world file as JSON indented with 4 spaces.
ST_STYLE = JsonStyle(indent="    ", final_newline=False)


def _mounts(request: Request) -> dict[str, list[str]]:
    return lorebook_mounts(home_of(request))


def _book_path(request: Request, kind: Kind, name: str) -> Path:
    home = home_of(request)
    if kind == "supplement":
        return open_card(home, name).supplement_book_file
    path = lorebook_path(home, name)
    if not path.is_file():
        raise NotFound(f"世界书库里没有「{lorebook_name(name)}」（no such lorebook）")
    return path


def _read(path: Path, kind: Kind) -> tuple[dict[str, Any], JsonStyle]:
    if kind == "supplement" and not path.is_file():
        return {"entries": {}}, JsonStyle()  # the stage writes supplement books tab-indented
    value, style = read_json_file(path, ST_STYLE)
    if not isinstance(value, dict) or not isinstance(value.get("entries"), dict):
        raise BadInput("不是 SillyTavern 独立世界书（entries 不是对象），无法在这里编辑", path=path.name)
    return value, style


def _count(path: Path) -> int | None:
    try:
        value, _ = read_json_file(path)
    except BadInput:
        return None
    entries = value.get("entries") if isinstance(value, dict) else None
    return len(entries) if isinstance(entries, dict | list) else None


@router.get("/lore")
def books(request: Request) -> dict[str, Any]:
    home = home_of(request)
    mounts = _mounts(request)
    cards = [folder.folder for folder in list_cards(home)]
    library = [
        {"kind": "book", "name": name, "entries": _count(home.lorebooks_dir / f"{name}.json"),
         "mounted_on": mounts.get(name, [])}
        for name in list_lorebook_names(home)
    ]  # fmt: skip
    supplements = []
    for card in cards:
        path = open_card(home, card).supplement_book_file
        if path.is_file():
            supplements.append({"kind": "supplement", "name": card, "file": path.name, "entries": _count(path),
                                "mounted_on": [card]})  # fmt: skip
    return {"books": library + supplements, "cards": cards}


class NewBook(BaseModel):
    name: str


@router.post("/lore")
def create_book(request: Request, body: NewBook) -> dict[str, Any]:
    """An empty library book (``library/lorebooks/<name>.json``), as SillyTavern's "create" writes it."""
    path = lorebook_path(home_of(request), body.name)
    if path.exists():
        raise ConflictError(f"世界书「{lorebook_name(body.name)}」已经存在（already exists）")
    write_json_file(path, {"entries": {}}, ST_STYLE)
    return book(request, "book", lorebook_name(body.name))


@router.post("/lore/book/{name}/delete")
def delete_book(request: Request, name: str) -> dict[str, Any]:
    """Delete a library book: the vault keeps it (snapshot first), every card that mounted it lets go."""
    home = home_of(request)
    path = _book_path(request, "book", name)
    snapshot = Vault(home).snapshot(f"删除世界书「{lorebook_name(name)}」之前")
    unmounted = [card for card in _mounts(request).get(lorebook_name(name), [])
                 if unmount_lorebook(home, card, name)]  # fmt: skip
    path.unlink()
    latest = snapshot or Vault(home).latest()
    return {"deleted": lorebook_name(name), "unmounted": unmounted, "snapshot": latest.id if latest else None}


class MountBody(BaseModel):
    card: str
    mounted: bool


@router.post("/lore/book/{name}/mount")
def mount(request: Request, name: str, body: MountBody) -> dict[str, Any]:
    """Mount the book on a card (added to its ``卡.json`` ``lorebooks``) or take it off."""
    home = home_of(request)
    _book_path(request, "book", name)
    if body.mounted:
        mount_lorebook(home, body.card, name)
    else:
        unmount_lorebook(home, body.card, name)
    return book(request, "book", name)


@router.get("/lore/{kind}/{name}")
def book(request: Request, kind: Kind, name: str) -> dict[str, Any]:
    path = _book_path(request, kind, name)
    value, _ = _read(path, kind)
    entries = [
        {"uid": entry.get("uid", key), "slot": key, "fp": entry_fingerprint(entry), "entry": entry}
        for key, entry in value["entries"].items()
        if isinstance(entry, dict)
    ]
    # SillyTavern lists entries by displayIndex (editor order), then uid.
    entries.sort(key=lambda e: (_sort_number(e["entry"].get("displayIndex")), _sort_number(e["uid"])))
    mounted = [name] if kind == "supplement" else _mounts(request).get(lorebook_name(name), [])
    return {"kind": kind, "name": lorebook_name(name) if kind == "book" else name, "file": path.name,
            "entries": entries, "mounted_on": mounted}  # fmt: skip


def _sort_number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


def _write(path: Path, value: dict[str, Any], style: JsonStyle) -> None:
    # No chat needs telling: every beat reads the mounted books again (cached by file stamp).
    write_json_file(path, value, style)


class EntryBody(BaseModel):
    fields: dict[str, Any] = {}
    fp: str | None = None  # the version the page edited (from the listing); a mismatch is 409


@router.post("/lore/{kind}/{name}/entries")
def new_entry(request: Request, kind: Kind, name: str, body: EntryBody) -> dict[str, Any]:
    """A new entry with SillyTavern's defaults (smallest free uid), with *fields* set."""
    path = _book_path(request, kind, name)
    value, style = _read(path, kind)
    start = SUPPLEMENT_UID_START if kind == "supplement" else 0
    value, uid = add_entry(value, body.fields, uid_start=start)
    _write(path, value, style)
    return {"uid": uid, "book": book(request, kind, name)}


@router.post("/lore/{kind}/{name}/entries/{uid}")
def edit_entry(request: Request, kind: Kind, name: str, uid: str, body: EntryBody) -> dict[str, Any]:
    path = _book_path(request, kind, name)
    value, style = _read(path, kind)
    value = update_entry(value, uid, body.fields, body.fp)
    _write(path, value, style)
    return book(request, kind, name)


@router.post("/lore/{kind}/{name}/entries/{uid}/delete")
def remove_entry(request: Request, kind: Kind, name: str, uid: str) -> dict[str, Any]:
    path = _book_path(request, kind, name)
    value, style = _read(path, kind)
    value = delete_entry(value, uid)
    _write(path, value, style)
    return book(request, kind, name)
