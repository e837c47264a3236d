"""Cards on disk: one card = one folder ``cards/<folder>/`` (the card file, ``卡.json``, chats …).

This is the card-folder API the rest of the program uses: list the cards, open one by name, read
its card file and its settings, mount and unmount lorebooks, and choose a folder name for a new
card.  Nothing here writes unless the function says it does, and every write is atomic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput, NotFound, PearError, storage_error
from peargarden.formats import Card, read_card
from peargarden.text.names import did_you_mean

from . import atomic
from .config import Settings, merge_card_settings
from .home import CARD_SETTINGS_FILE, SUPPLEMENT_BOOK_FILE, Home, sanitize_name
from .inputs import read_input
from .library import lorebook_exists, lorebook_name, no_such_lorebook
from .text_files import read_user_text

#: What a card file may end with, in the order a folder is searched.
CARD_SUFFIXES = (".png", ".json", ".charx")

# JSON files in a card folder that are never the card itself.
_NOT_CARD_FILES = frozenset({CARD_SETTINGS_FILE, SUPPLEMENT_BOOK_FILE})

CHATS_DIR = "chats"


class CardFolder(msgspec.Struct, frozen=True):
    """One card's folder.  Constructing one touches nothing on disk."""

    home: Home
    folder: str

    @property
    def path(self) -> Path:
        return self.home.card_dir(self.folder)

    @property
    def settings_file(self) -> Path:
        return self.path / CARD_SETTINGS_FILE

    @property
    def supplement_book_file(self) -> Path:
        return self.path / SUPPLEMENT_BOOK_FILE

    @property
    def chats_dir(self) -> Path:
        return self.path / CHATS_DIR

    def card_file(self) -> Path | None:
        """The card file: ``<folder>.png|json|charx`` first, else the first such file by name."""
        for suffix in CARD_SUFFIXES:
            preferred = self.path / f"{self.folder}{suffix}"
            if preferred.is_file():
                return preferred
        try:
            candidates = sorted(
                p
                for p in self.path.iterdir()
                if p.is_file()
                and p.suffix.lower() in CARD_SUFFIXES
                and p.name not in _NOT_CARD_FILES
                and not p.name.startswith(".")
            )
        except OSError:
            return None
        return candidates[0] if candidates else None

    def load_card(self) -> Card:
        """Parse the card file (``NotFound`` without one, ``FormatError`` when it is damaged)."""
        path = self.card_file()
        if path is None:
            raise NotFound(f"卡「{self.folder}」的文件夹里没有角色卡文件（no card file）", path=self.path)
        return read_card(read_input(path), str(path))

    def settings(self) -> dict[str, Any]:
        """``卡.json`` as a dict; ``{}`` when the card has none."""
        return read_settings_file(self.settings_file, "卡设置")

    def write_settings(self, settings: dict[str, Any]) -> None:
        write_settings_file(self.settings_file, settings)

    def lorebooks(self) -> list[str]:
        """Names of the library lorebooks mounted on this card, in mount order."""
        books = self.settings().get("lorebooks", [])
        if isinstance(books, str):
            books = [books]
        if not isinstance(books, list):
            return []
        return [lorebook_name(b) for b in books if isinstance(b, str) and b.strip()]

    def effective_settings(self, global_settings: Settings) -> Settings:
        """Global settings with this card's ``卡.json`` on top (card value wins per field)."""
        return merge_card_settings(global_settings, self.settings(), where=self.settings_file)

    def chat_ids(self) -> list[str]:
        try:
            return sorted(p.name for p in self.chats_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        except OSError:
            return []


def read_settings_file(path: Path, what: str) -> dict[str, Any]:
    """A hand-edited settings file of ours (``卡.json``, ``群.json``) as a dict; ``{}`` when there is
    none.  *what* names it in the one-line error."""
    try:
        text = read_user_text(path, what)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise BadInput(f"无法读取{what}：{exc}", path=path) from None
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise BadInput(f"{what}不是合法的 JSON：第 {exc.lineno} 行（invalid JSON）", path=path) from None
    if not isinstance(value, dict):
        raise BadInput(f"{what}应是一个 JSON 对象（expected an object）", path=path)
    return value


def write_settings_file(path: Path, settings: dict[str, Any]) -> None:
    try:
        atomic.write_json(path, settings)
    except OSError as exc:
        failed = PearError(f"无法写入：{exc.strerror or exc}（write failed）", path=path)
        raise storage_error(exc) or failed from None


def list_cards(home: Home) -> list[CardFolder]:
    """Every card folder, sorted by folder name (hidden folders skipped)."""
    try:
        folders = [p.name for p in home.cards_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []
    return [CardFolder(home, name) for name in sorted(folders)]


def _is_dir(path: Path) -> bool:
    """``is_dir`` that answers False for a name the system cannot hold (ENAMETOOLONG), not raise."""
    try:
        return path.is_dir()
    except OSError:
        return False


def lorebook_mounts(home: Home) -> dict[str, list[str]]:
    """Library book name → the cards that mount it (cards whose settings cannot be read are skipped)."""
    found: dict[str, list[str]] = {}
    for folder in list_cards(home):
        try:
            books = folder.lorebooks()
        except PearError:
            continue
        for book in books:
            found.setdefault(book, []).append(folder.folder)
    return found


def open_card(home: Home, name: str) -> CardFolder:
    """The card called *name*: its folder name, or the folder the name would be sanitised to."""
    wanted = name.strip()
    for candidate in (wanted, sanitize_name(wanted)):
        if candidate and "/" not in candidate and candidate not in (".", "..") and _is_dir(home.card_dir(candidate)):
            return CardFolder(home, candidate)
    if not sanitize_name(wanted):
        raise BadInput(f"卡名「{name}」里没有可用的字符（name has no letters or digits）")
    near = did_you_mean(wanted, [folder.folder for folder in list_cards(home)])
    raise NotFound(f"没有名为「{name}」的卡（no such card）{near}", hint="" if near else "用 pear cards 查看已有的卡")


def folder_name(name: str, *, source: str | Path | None = None) -> str:
    """The folder name for a card called *name*; ``BadInput`` when nothing usable is left."""
    cleaned = sanitize_name(name)
    if not cleaned:
        what = f"角色名「{name}」" if name.strip() else "角色名为空"
        raise BadInput(f"{what}只有标点或空白，无法用作文件夹名（unusable name）", path=source)
    return cleaned


def unique_name(base: str, taken: Iterable[str]) -> str:
    """*base*, or ``base-2``, ``base-3`` … whichever is not taken (compared case-insensitively,
    since Windows and macOS file systems are)."""
    used = {t.casefold() for t in taken}
    if base.casefold() not in used:
        return base
    n = 2
    while f"{base}-{n}".casefold() in used:
        n += 1
    return f"{base}-{n}"


def new_folder_name(home: Home, name: str, *, reserved: Iterable[str] = (), source: str | Path | None = None) -> str:
    """A free folder name for a new card called *name* (existing folders and *reserved* are taken)."""
    taken = [c.folder for c in list_cards(home)]
    taken.extend(reserved)
    return unique_name(folder_name(name, source=source), taken)


def mount_lorebook(home: Home, card: str, book: str) -> bool:
    """Add library lorebook *book* to the card's ``lorebooks``; ``False`` when it was already there."""
    folder = open_card(home, card)
    name = lorebook_name(book)
    if not lorebook_exists(home, name):
        raise no_such_lorebook(home, name)
    settings = folder.settings()
    mounted = folder.lorebooks()
    if name in mounted:
        return False
    settings["lorebooks"] = [*mounted, name]
    folder.write_settings(settings)
    return True


def unmount_lorebook(home: Home, card: str, book: str) -> bool:
    """Remove *book* from the card's ``lorebooks``; ``False`` when it was not mounted."""
    folder = open_card(home, card)
    name = lorebook_name(book)
    settings = folder.settings()
    mounted = folder.lorebooks()
    if name not in mounted:
        return False
    settings["lorebooks"] = [b for b in mounted if b != name]
    folder.write_settings(settings)
    return True
