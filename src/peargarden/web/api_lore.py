"""``/api/lore``: the lorebook editor — every library book and every card's supplement book.

Books: list (with the cards that mount each), create, delete (a vault snapshot first, then unmounted
from every card), mount and unmount on a card.  Entries: read, add, change any field SillyTavern's
world-info editor has, delete.  A thin front over :mod:`peargarden.app.cards.lore_books`.  A book is
addressed as ``book/<name>`` (library) or ``supplement/<card>``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app import cards
from peargarden.app.cards import BookKind

from .deps import home_of

router = APIRouter(prefix="/api")


@router.get("/lore")
def books(request: Request) -> dict[str, Any]:
    return cards.list_books(home_of(request))


class NewBook(BaseModel):
    name: str


@router.post("/lore")
def create_book(request: Request, body: NewBook) -> dict[str, Any]:
    """An empty library book, as SillyTavern's "create" writes it; an existing name is 409."""
    return cards.create_book(home_of(request), body.name)


@router.post("/lore/book/{name}/delete")
def delete_book(request: Request, name: str) -> dict[str, Any]:
    return cards.delete_book(home_of(request), name)


class MountBody(BaseModel):
    card: str
    mounted: bool


@router.post("/lore/book/{name}/mount")
def mount(request: Request, name: str, body: MountBody) -> dict[str, Any]:
    return cards.set_mounted(home_of(request), name, body.card, body.mounted)


@router.get("/lore/{kind}/{name}")
def book(request: Request, kind: BookKind, name: str) -> dict[str, Any]:
    return cards.read_book(home_of(request), kind, name)


class EntryBody(BaseModel):
    fields: dict[str, Any] = {}
    fp: str | None = None  # the version the page edited (from the listing); a mismatch is 409


@router.post("/lore/{kind}/{name}/entries")
def new_entry(request: Request, kind: BookKind, name: str, body: EntryBody) -> dict[str, Any]:
    return cards.new_lore_entry(home_of(request), kind, name, body.fields)


@router.post("/lore/{kind}/{name}/entries/{uid}")
def edit_entry(request: Request, kind: BookKind, name: str, uid: str, body: EntryBody) -> dict[str, Any]:
    return cards.edit_lore_entry(home_of(request), kind, name, uid, body.fields, body.fp)


@router.post("/lore/{kind}/{name}/entries/{uid}/delete")
def remove_entry(request: Request, kind: BookKind, name: str, uid: str) -> dict[str, Any]:
    return cards.remove_lore_entry(home_of(request), kind, name, uid)
