"""Lorebooks for the editor: every library book and every card's supplement book — list, create,
delete (a vault snapshot first, then unmounted from every card), mount, read, and entry edits written
back atomically in the file's own JSON style.  Entry edits follow
:mod:`peargarden.formats.lorebook_edit` (stored as SillyTavern's world-info editor stores them).
A book is named by its kind — ``book`` (library, by name) or ``supplement`` (by card) — and a name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from peargarden.errors import BadInput, ConflictError
from peargarden.formats.lorebook_edit import add_entry, delete_entry, entry_fingerprint, update_entry
from peargarden.modes.stage.materials import load_stage_materials
from peargarden.stage.lore.book import SUPPLEMENT_UID_START
from peargarden.stage.lore.search import search_entries
from peargarden.workspace.cards import list_cards, lorebook_mounts, mount_lorebook, open_card, unmount_lorebook
from peargarden.workspace.home import Home
from peargarden.workspace.library import list_lorebook_names, lorebook_name, lorebook_path, no_such_lorebook
from peargarden.workspace.vault import Vault

if TYPE_CHECKING:
    from peargarden.stage.lore.search import SearchHit

from ..library.json_files import JsonStyle, read_json_file, write_json_file

Kind = Literal["book", "supplement"]
# SillyTavern's server writes a world file as JSON indented with 4 spaces.
ST_STYLE = JsonStyle(indent="    ", final_newline=False)


def book_path(home: Home, kind: Kind, name: str) -> Path:
    if kind == "supplement":
        return open_card(home, name).supplement_book_file
    path = lorebook_path(home, name)
    if not path.is_file():
        raise no_such_lorebook(home, name)
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


def list_books(home: Home) -> dict[str, Any]:
    mounts = lorebook_mounts(home)
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


def read_book(home: Home, kind: Kind, name: str) -> dict[str, Any]:
    path = book_path(home, kind, name)
    value, _ = _read(path, kind)
    entries = [
        {"uid": entry.get("uid", key), "slot": key, "fp": entry_fingerprint(entry), "entry": entry}
        for key, entry in value["entries"].items()
        if isinstance(entry, dict)
    ]
    # SillyTavern lists entries by displayIndex (editor order), then uid.
    entries.sort(key=lambda e: (_sort_number(e["entry"].get("displayIndex")), _sort_number(e["uid"])))
    mounted = [name] if kind == "supplement" else lorebook_mounts(home).get(lorebook_name(name), [])
    return {"kind": kind, "name": lorebook_name(name) if kind == "book" else name, "file": path.name,
            "entries": entries, "mounted_on": mounted}  # fmt: skip


def _sort_number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("inf")


def create_book(home: Home, name: str) -> dict[str, Any]:
    """An empty library book (``library/lorebooks/<name>.json``), as SillyTavern's "create" writes it."""
    path = lorebook_path(home, name)
    if path.exists():
        raise ConflictError(f"世界书「{lorebook_name(name)}」已经存在（already exists）")
    write_json_file(path, {"entries": {}}, ST_STYLE)
    return read_book(home, "book", lorebook_name(name))


def delete_book(home: Home, name: str) -> dict[str, Any]:
    """Delete a library book: the vault keeps it (snapshot first), every card that mounted it lets go."""
    path = book_path(home, "book", name)
    snapshot = Vault(home).snapshot(f"删除世界书「{lorebook_name(name)}」之前") or Vault(home).latest()
    unmounted = [card for card in lorebook_mounts(home).get(lorebook_name(name), [])
                 if unmount_lorebook(home, card, name)]  # fmt: skip
    path.unlink()
    return {"deleted": lorebook_name(name), "unmounted": unmounted, "snapshot": snapshot.id if snapshot else None}


def set_mounted(home: Home, name: str, card: str, mounted: bool) -> dict[str, Any]:
    """Mount the book on a card (its ``卡.json`` ``lorebooks``) or take it off."""
    book_path(home, "book", name)
    if mounted:
        mount_lorebook(home, card, name)
    else:
        unmount_lorebook(home, card, name)
    return read_book(home, "book", name)


def _change(home: Home, kind: Kind, name: str, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    path = book_path(home, kind, name)
    value, style = _read(path, kind)
    # No chat needs telling: every beat reads the mounted books again (cached by file stamp).
    write_json_file(path, edit(value), style)


def new_entry(home: Home, kind: Kind, name: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A new entry with SillyTavern's defaults (smallest free uid; from 9000 in a supplement book)."""
    start = SUPPLEMENT_UID_START if kind == "supplement" else 0
    made: list[int] = []

    def add(value: dict[str, Any]) -> dict[str, Any]:
        book, uid = add_entry(value, fields, uid_start=start)
        made.append(uid)
        return book

    _change(home, kind, name, add)
    return {"uid": made[0], "book": read_book(home, kind, name)}


def edit_entry(home: Home, kind: Kind, name: str, slot: str, fields: dict[str, Any], fp: str | None) -> dict[str, Any]:
    _change(home, kind, name, lambda value: update_entry(value, slot, fields, fp))
    return read_book(home, kind, name)


def remove_entry(home: Home, kind: Kind, name: str, slot: str) -> dict[str, Any]:
    _change(home, kind, name, lambda value: delete_entry(value, slot))
    return read_book(home, kind, name)


def search_lore(home: Home, card: str, query: str, limit: int) -> tuple[list[SearchHit], list[str]]:
    """*card*'s lore (mounted books and its supplement book) searched as the stage's
    ``lorebook_search`` does: the best *limit* hits (``.entry``, ``.score``) and what reading the
    books warned about."""

    materials = load_stage_materials(home, card)
    return search_entries(materials.corpus.entries, query, limit), list(materials.warnings)
