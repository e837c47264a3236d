"""The shared library: ``library/lorebooks/<name>.json`` and ``library/presets/<name>.json``.

A lorebook's or preset's name is its file name without ``.json`` (as in SillyTavern).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput, NotFound
from peargarden.formats import read_lorebook
from peargarden.text.names import did_you_mean

from .home import Home, sanitize_name
from .inputs import read_input

JSON_SUFFIX = ".json"


def lorebook_name(book: str) -> str:
    """``栖水镇.json`` and ``栖水镇`` both name the book ``栖水镇``."""
    name = book.strip()
    if name.lower().endswith(JSON_SUFFIX):
        name = name[: -len(JSON_SUFFIX)]
    return name


def lorebook_path(home: Home, book: str) -> Path:
    name = lorebook_name(book)
    if not sanitize_name(name) or name != sanitize_name(name):
        raise BadInput(f"世界书名「{book}」不可用（unusable lorebook name）")
    return home.lorebooks_dir / f"{name}{JSON_SUFFIX}"


def lorebook_exists(home: Home, book: str) -> bool:
    try:
        return lorebook_path(home, book).is_file()
    except BadInput:
        return False


def no_such_lorebook(home: Home, book: str) -> NotFound:
    """The error for a library lorebook that is not there, naming the near names."""
    name = lorebook_name(book)
    near = did_you_mean(name, list_lorebook_names(home))
    listing = "" if near else "用 pear lorebook list 查看"
    return NotFound(f"世界书库里没有「{name}」（no such lorebook）{near}", hint=listing)


def no_such_preset(home: Home, preset: str) -> NotFound:
    """The error for a library preset that is not there, naming the near names."""
    name = lorebook_name(preset)
    return NotFound(f"预设库里没有「{name}」（no such preset）{did_you_mean(name, list_preset_names(home))}")


def list_lorebook_names(home: Home) -> list[str]:
    return _names(home.lorebooks_dir)


def list_preset_names(home: Home) -> list[str]:
    return _names(home.presets_dir)


def list_regex_names(home: Home) -> list[str]:
    """Global regex-script files (``library/regex/<name>.json``)."""
    return _names(home.regex_dir)


def _names(folder: Path) -> list[str]:
    try:
        return sorted(
            p.name[: -len(JSON_SUFFIX)]
            for p in folder.iterdir()
            if p.is_file() and p.name.lower().endswith(JSON_SUFFIX) and not p.name.startswith(".")
        )
    except OSError:
        return []


def read_library_lorebook(home: Home, book: str) -> dict[str, Any]:
    """A library lorebook in SillyTavern's standalone shape."""
    path = lorebook_path(home, book)
    if not path.is_file():
        raise no_such_lorebook(home, book)
    return read_lorebook(read_input(path), str(path))


class LorebookInfo(msgspec.Struct, frozen=True):
    name: str
    path: Path
    entries: int | None
    error: str | None = None


def lorebook_info(home: Home, book: str) -> LorebookInfo:
    """Name and entry count; a damaged file is reported in ``error`` instead of raising."""
    path = lorebook_path(home, book)
    try:
        data = read_library_lorebook(home, book)
    except (BadInput, NotFound) as exc:
        return LorebookInfo(lorebook_name(book), path, None, exc.message)
    entries = data.get("entries")
    count = len(entries) if isinstance(entries, (dict, list)) else 0
    return LorebookInfo(lorebook_name(book), path, count)
