"""Cards as files, for the fronts: create from scratch, export, rename, a new picture, duplicate,
delete into the vault.

Rename changes the character's name inside the card file (SillyTavern's ``name``; ``{{char}}``
follows it) and the card's folder with it (its chats, ``卡.json`` and books move along); links to the
old folder name still find the card (``renamed_card``).  Every change that rewrites or removes a card
file takes a vault snapshot first (its id is returned: restoring it undoes the change).
"""

from __future__ import annotations

import io
import os
import shutil

from PIL import Image, UnidentifiedImageError

from peargarden.errors import BadInput, PearError
from peargarden.formats import Card, card_to_charx, card_to_json, card_to_png
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, folder_name, list_cards, open_card, unique_name
from peargarden.workspace.exporter import CARD_FORMATS, card_image, default_spec, export_card, placeholder_png
from peargarden.workspace.home import Home

from ..library.snapshots import undo_point

__all__ = ["CARD_FORMATS", "create_card", "delete_card", "duplicate_card", "export_card", "rename_card",
           "renamed_card", "set_picture"]  # fmt: skip


def _write_card(folder: CardFolder, card: Card, image: bytes | None = None) -> None:
    """Write *card* back as its own kind of file (a new *image* makes it a PNG card)."""
    path = folder.card_file()
    spec = default_spec(card)
    if image is not None or path is None or path.suffix.lower() == ".png":
        picture = image or card_image(folder, card) or placeholder_png()
        target = folder.path / f"{folder.folder}.png"
        atomic.write_bytes(target, card_to_png(card, picture, spec))
        if path is not None and path != target:
            path.unlink()
    elif path.suffix.lower() == ".json":
        atomic.write_bytes(path, card_to_json(card, spec))
    else:
        atomic.write_bytes(path, card_to_charx(card))


def create_card(home: Home, name: str, description: str = "", first_mes: str = "") -> CardFolder:
    """A new V3 PNG card with a plain picture, in a folder of its own."""
    name = name.strip()
    base = folder_name(name)
    folder = CardFolder(home, unique_name(base, [f.folder for f in list_cards(home)]))
    card = Card.new(name, description=description, first_mes=first_mes)
    atomic.write_bytes(folder.path / f"{folder.folder}.png", card_to_png(card, placeholder_png(), "v3"))
    return folder


RENAMED_FROM = "renamed_from"  # 卡.json: the folder names a card had (their old URLs lead to it)


def rename_card(home: Home, name: str, new_name: str) -> tuple[CardFolder, str, str]:
    """The character gets *new_name* in its card file, and its folder (so its URLs, its chats' and
    pages' titles) follows: ``cards/<new>/<new>.<ext>``, chats, ``卡.json`` and books moved along; the
    old folder name is kept in ``卡.json`` (``renamed_from``) so links to it still lead here.
    (folder, the new name, the undo snapshot)."""
    folder = open_card(home, name)
    new_name = " ".join(new_name.split())
    if not new_name:
        raise BadInput("新名字是空的（empty name）")
    card = folder.load_card()
    target = folder_name(new_name)
    if target != folder.folder:
        target = unique_name(target, [f.folder for f in list_cards(home) if f.folder != folder.folder])
    snapshot = undo_point(home, f"改名 {folder.folder} → {new_name}")
    card.data["name"] = new_name
    _write_card(folder, card)
    if target == folder.folder:
        return folder, new_name, snapshot
    moved = CardFolder(home, target)
    os.rename(folder.path, moved.path)  # one step on one file system: no half-moved card
    card_file = moved.card_file()
    if card_file is not None and card_file.stem == folder.folder:  # named after its folder: still is
        card_file.rename(moved.path / f"{target}{card_file.suffix}")
    settings = moved.settings()
    earlier = [n for n in settings.get(RENAMED_FROM) or [] if isinstance(n, str) and n != target]
    settings[RENAMED_FROM] = [*dict.fromkeys([*earlier, folder.folder])]
    moved.write_settings(settings)
    return moved, new_name, snapshot


def renamed_card(home: Home, old: str) -> CardFolder | None:
    """The card that was once in folder *old* (a link from before a rename), if any."""
    for folder in list_cards(home):
        try:
            earlier = folder.settings().get(RENAMED_FROM)
        except PearError:
            continue
        if isinstance(earlier, list) and old in earlier:
            return folder
    return None


def as_png(image: bytes, filename: str | None = None) -> bytes:
    """Any picture Pillow reads, as PNG bytes; ``BadInput`` for anything else."""
    try:
        with Image.open(io.BytesIO(image)) as opened:
            opened.load()
            buffer = io.BytesIO()
            opened.convert("RGBA").save(buffer, format="PNG")
            return buffer.getvalue()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        raise BadInput("这不是能读的图片（not an image）", path=filename) from None


def set_picture(home: Home, name: str, image: bytes, filename: str | None = None) -> tuple[CardFolder, str]:
    """The card lives in a PNG of *image* from now on; (folder, the undo snapshot)."""
    folder = open_card(home, name)
    card = folder.load_card()
    png = as_png(image, filename)
    snapshot = undo_point(home, f"换头像 {folder.folder}")
    _write_card(folder, card, png)
    return folder, snapshot


def duplicate_card(home: Home, name: str) -> CardFolder:
    """A copy of the card's folder without its chats (as SillyTavern duplicates a character)."""
    folder = open_card(home, name)
    target = CardFolder(home, unique_name(folder.folder, [f.folder for f in list_cards(home)]))
    shutil.copytree(folder.path, target.path, ignore=shutil.ignore_patterns("chats", ".*"))
    # The card file is named after its folder: it follows the new folder's name.
    for suffix in (".png", ".json", ".charx"):
        old = target.path / f"{folder.folder}{suffix}"
        if old.is_file():
            old.rename(target.path / f"{target.folder}{suffix}")
    return target


def delete_card(home: Home, name: str) -> tuple[CardFolder, dict[str, str]]:
    """Remove the card's folder (its chats too) after a vault snapshot; ``{"snapshot", "path"}`` undoes it."""
    folder = open_card(home, name)
    snapshot = undo_point(home, f"删除卡 {folder.folder}")
    shutil.rmtree(folder.path)
    return folder, {"snapshot": snapshot, "path": folder.path.relative_to(home.root).as_posix()}
