"""The data folder's cards and shared lorebooks for the fronts: list them, find one by name, mount a
book on a card, write one out as SillyTavern files, and seed a new data folder.

Loaded by the light commands (``pear cards``, ``pear lorebook list``): it imports no heavy library at
module level (exporting a card needs Pillow, imported when a card is exported).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, PearError, storage_error
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder, list_cards, lorebook_mounts, mount_lorebook, open_card
from peargarden.workspace.cards import unmount_lorebook as _unmount
from peargarden.workspace.home import Home
from peargarden.workspace.library import list_lorebook_names, lorebook_info, lorebook_name
from peargarden.workspace.seed import seed_home

_SPECS = {"v1": "chara_card_v1", "v2": "chara_card_v2", "v3": "chara_card_v3"}


def init_home(home: Home) -> list[Path]:
    """Create the data folder with its defaults (never overwriting anything); what was created."""

    return seed_home(home)


def card(home: Home, name: str) -> CardFolder:
    """The card folder *name* (its name checked); ``NotFound`` when there is none."""
    return open_card(home, name)


def cards(home: Home) -> list[CardFolder]:
    """Every card folder of the data folder, by name."""
    return list_cards(home)


def card_summary(folder: CardFolder) -> dict[str, Any]:
    """One card as a listing shows it: folder, name, card file, spec, mounted books, number of chats;
    a damaged card is listed with its ``error`` (one bad card never hides the others)."""
    card_file = folder.card_file()
    row: dict[str, Any] = {
        "folder": folder.folder,
        "name": None,
        "file": card_file.name if card_file else None,
        "spec": None,
        "lorebooks": [],
        "chats": len(folder.chat_ids()),
    }
    try:
        row["lorebooks"] = folder.lorebooks()
        loaded = folder.load_card()
        row["name"] = loaded.name
        row["spec"] = _SPECS[loaded.source_spec]
    except PearError as error:
        row["error"] = error.message
    return row


def lorebook_rows(home: Home) -> list[dict[str, Any]]:
    """The library's lorebooks: name, file (relative to the data folder), entry count, the cards that
    mount it, and the ``error`` of a book that cannot be read."""
    mounted_by = lorebook_mounts(home)
    rows: list[dict[str, Any]] = []
    for name in list_lorebook_names(home):
        info = lorebook_info(home, name)
        row: dict[str, Any] = {
            "name": info.name,
            "file": info.path.relative_to(home.root).as_posix(),
            "entries": info.entries,
            "mounted_by": mounted_by.get(name, []),
        }
        if info.error:
            row["error"] = info.error
        rows.append(row)
    return rows


def mount(home: Home, card_name: str, book: str) -> bool:
    """Mount a library book on a card (its 卡.json ``lorebooks``); False when it already was."""
    return mount_lorebook(home, card_name, book)


def unmount(home: Home, card_name: str, book: str) -> bool:
    """Take a book off a card (the book stays in the library); False when it was not mounted."""
    return _unmount(home, card_name, book)


def _target(out: Path, default_name: str) -> Path:
    """*out* may name a file or an existing folder (then the file is named after the card or book)."""
    return out / default_name if out.is_dir() else out


def _write(path: Path, data: bytes) -> None:

    if not path.parent.is_dir():
        raise BadInput("输出文件夹不存在（output folder does not exist）", path=path.parent)
    try:
        atomic.write_bytes(path, data)
    except OSError as exc:
        raise storage_error(exc) or BadInput(f"无法写入：{exc.strerror}", path=path) from None


def export_card_file(home: Home, name: str, fmt: str, spec: str | None, out: Path) -> tuple[str, Path]:
    """Write card *name* as *fmt* (png, json, charx) to *out*; (the card's folder name, the file)."""
    from peargarden.workspace.exporter import export_card

    folder, data = export_card(home, name, fmt, spec)
    target = _target(out, f"{folder.folder}.{fmt}")
    _write(target, data)
    return folder.folder, target


def export_lorebook_file(home: Home, name: str, out: Path) -> tuple[str, Path]:
    """Write library book *name* as SillyTavern world-info JSON to *out*; (its name, the file)."""
    from peargarden.workspace.exporter import export_lorebook

    data = export_lorebook(home, name)
    book = lorebook_name(name)
    target = _target(out, f"{book}.json")
    _write(target, data)
    return book, target
