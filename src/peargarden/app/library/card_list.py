"""The character list as a front shows it, for hundreds of cards: per card its name, creator, creator
notes, tags (the card's own ``data.tags`` and the user's), favourite, how many chats and when the last
one was written, when the card was added — and searching and sorting them.

Reading a card means reading its file (a PNG of a megabyte or more) and parsing the card in it: the
rows are kept in memory, each trusted while its card file and ``卡.json`` are unchanged (size, time,
inode), so listing 500 cards a second time costs a few stats per card.  The chats are counted afresh
each time (one directory listing and a stat per chat).  Nothing is written by listing.

The user's own tags and the favourite mark live in the card's ``卡.json`` (``"tags"``, ``"favorite"``),
never in the card file: the card stays byte for byte as it was shared.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.errors import BadInput, PearError
from peargarden.workspace.cards import CardFolder, list_cards
from peargarden.workspace.chats import last_written
from peargarden.workspace.home import Home

NOTES_KEPT = 400  # characters of the creator notes a row keeps (what search looks through)
MAX_TAG = 40
MAX_TAGS = 50
SORTS = ("name", "last_chat", "added")


class CardRow(msgspec.Struct, frozen=True):
    folder: str
    name: str
    creator: str = ""
    notes: str = ""  # the creator notes, at most NOTES_KEPT characters
    card_tags: list[str] = msgspec.field(default_factory=list)  # the card's data.tags
    own_tags: list[str] = msgspec.field(default_factory=list)  # the user's, from 卡.json
    favorite: bool = False
    lorebooks: list[str] = msgspec.field(default_factory=list)
    added: float = 0.0  # when the card file came into the data folder (its first stamp seen)
    chats: int = 0
    last_chat: float = 0.0  # when its newest chat was last written (0: no chat)
    error: str | None = None

    @property
    def tags(self) -> list[str]:
        """The card's tags, then the user's own not among them."""
        return [*self.card_tags, *(tag for tag in self.own_tags if tag not in self.card_tags)]


# Card path → (stamp, row without its chats); kept for the life of the process.
_ROWS: dict[str, tuple[tuple[Any, ...], CardRow]] = {}
_GUARD = threading.Lock()


def _stat(path: Path | None) -> tuple[Any, ...]:
    if path is None:
        return ()
    try:
        info = path.stat()
    except OSError:
        return ()
    return (path.name, info.st_size, info.st_mtime_ns, info.st_ino)


def _added(path: Path | None) -> float:
    """When the card file was made here: its change time at the latest, its write time if older
    (a card copied in keeps the write time it came with)."""
    if path is None:
        return 0.0
    try:
        info = path.stat()
    except OSError:
        return 0.0
    return min(info.st_mtime, info.st_ctime)


def _texts(value: Any) -> list[str]:
    return [str(item).strip() for item in value if str(item).strip()] if isinstance(value, list) else []


def _read_row(folder: CardFolder, card_file: Path | None) -> CardRow:
    try:
        settings = folder.settings()
    except PearError as error:
        return CardRow(folder.folder, folder.folder, error=error.message, added=_added(card_file))
    own = _texts(settings.get("tags"))
    favorite = settings.get("favorite") is True
    try:
        books = folder.lorebooks()
        card = folder.load_card()
    except PearError as error:
        return CardRow(folder.folder, folder.folder, own_tags=own, favorite=favorite, error=error.message,
                       added=_added(card_file))  # fmt: skip
    data = card.data
    return CardRow(
        folder=folder.folder,
        name=card.name or folder.folder,
        creator=str(data.get("creator") or ""),
        notes=str(data.get("creator_notes") or "")[:NOTES_KEPT],
        card_tags=_texts(data.get("tags")),
        own_tags=own,
        favorite=favorite,
        lorebooks=books,
        added=_added(card_file),
    )


def _chats(folder: CardFolder) -> tuple[int, float]:
    ids = folder.chat_ids()
    return len(ids), max((last_written(folder.chats_dir, chat_id) for chat_id in ids), default=0.0)


def card_row(folder: CardFolder) -> CardRow:
    """One card as the list shows it (from memory while its files are unchanged)."""
    card_file = folder.card_file()
    stamp = (_stat(card_file), _stat(folder.settings_file))
    key = str(folder.path)
    with _GUARD:
        hit = _ROWS.get(key)
    if hit is not None and hit[0] == stamp:
        row = hit[1]
    else:
        row = _read_row(folder, card_file)
        if hit is not None and hit[1].added and hit[0][0][:1] == stamp[0][:1]:
            row = replace(row, added=hit[1].added)  # the same card file rewritten: not added anew
        with _GUARD:
            _ROWS[key] = (stamp, row)
    count, last = _chats(folder)
    return replace(row, chats=count, last_chat=last)


def card_rows(home: Home) -> list[CardRow]:
    """Every card of the data folder as the list shows it, by folder name."""
    return [card_row(folder) for folder in list_cards(home)]


def fold(text: str) -> str:
    """Text as search compares it: full-width forms folded (ＡＢＣ → abc), case ignored."""
    return unicodedata.normalize("NFKC", text).casefold()


def matches(row: CardRow, query: str) -> bool:
    """Whether every word of *query* is in the card's name, creator, tags or creator notes."""
    haystack = fold("\n".join([row.name, row.folder, row.creator, row.notes, *row.tags]))
    return all(word in haystack for word in fold(query).split())


def search(rows: Iterable[CardRow], query: str = "", *, tag: str = "", favorites: bool = False,
           sort: str = "name") -> list[CardRow]:  # fmt: skip
    """*rows* that match *query* (words, any order), carry *tag* and (*favorites*) are marked, in the
    *sort* order: ``name`` (A→Z, CJK by code point as SillyTavern's locale sort does not apply here),
    ``last_chat`` (newest first) or ``added`` (newest first); favourites first in every order."""
    if sort not in SORTS:
        raise BadInput(f"未知的排序 {sort!r}（可用：{'、'.join(SORTS)}）")
    found = [r for r in rows if (not query or matches(r, query)) and (not tag or fold(tag) in map(fold, r.tags))
             and (not favorites or r.favorite)]  # fmt: skip
    if sort == "name":
        found.sort(key=lambda r: fold(r.name))
    elif sort == "last_chat":
        found.sort(key=lambda r: (-r.last_chat, fold(r.name)))
    else:
        found.sort(key=lambda r: (-r.added, fold(r.name)))
    found.sort(key=lambda r: not r.favorite)  # stable: favourites first, each group in the order chosen
    return found


def clean_tags(tags: Iterable[str]) -> list[str]:
    """The user's tags as kept: trimmed, no empty or repeated ones, each at most MAX_TAG characters."""
    out: list[str] = []
    for tag in tags:
        text = " ".join(str(tag).split())
        if not text:
            continue
        if len(text) > MAX_TAG:
            raise BadInput(f"标签太长（最多 {MAX_TAG} 个字）：{text[:MAX_TAG]}…")
        if text not in out:
            out.append(text)
    if len(out) > MAX_TAGS:
        raise BadInput(f"标签太多（最多 {MAX_TAGS} 个）")
    return out


def set_marks(folder: CardFolder, *, tags: list[str] | None = None, favorite: bool | None = None) -> CardRow:
    """Keep the user's own *tags* and/or the *favorite* mark in the card's ``卡.json``; the new row."""
    settings = folder.settings()
    if tags is not None:
        cleaned = clean_tags(tags)
        if cleaned:
            settings["tags"] = cleaned
        else:
            settings.pop("tags", None)
    if favorite is not None:
        if favorite:
            settings["favorite"] = True
        else:
            settings.pop("favorite", None)
    folder.write_settings(settings)
    return card_row(folder)
