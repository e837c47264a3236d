"""Quick Reply sets in the data folder (``library/quick-replies/<name>.json``, SillyTavern's set files)
and the global variables (``library/variables.json``) — read whole, written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, FormatError
from peargarden.stscript.quickreplies import QuickReplyLibrary, QuickReplySet

from .atomic import write_json
from .home import Home, sanitize_name
from .inputs import read_json


def _set_path(home: Home, name: str) -> Path:
    stem = sanitize_name(name)
    if not stem:
        raise BadInput(f"Quick Reply 集的名字 {name!r} 不能用作文件名")
    return home.quick_replies_dir / f"{stem}.json"


def read_set(path: Path) -> QuickReplySet:
    """One set file; ``FormatError`` naming the file when it is not a Quick Reply set."""
    try:
        return QuickReplySet.from_json(read_json(path))
    except ValueError as error:
        raise FormatError(str(error), path=path) from None


def load_library(home: Home) -> QuickReplyLibrary:
    """Every set of the data folder and the sets switched on for every chat.  A damaged set file is
    left out (and named by ``damaged_sets``), never the reason the others are not there."""
    library = QuickReplyLibrary()
    folder = home.quick_replies_dir
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                found = read_set(path)
            except FormatError:
                continue
            library.sets[found.name] = found
    if home.quick_replies_file.is_file():
        config = read_json(home.quick_replies_file)
        links = config.get("setList") if isinstance(config, dict) else None
        if isinstance(links, list):
            library.global_sets = [
                dict(link) for link in links if isinstance(link, dict) and link.get("set") in library.sets
            ]
    return library


def damaged_sets(home: Home) -> list[str]:
    """One line per set file that cannot be read."""
    lines = []
    folder = home.quick_replies_dir
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            read_set(path)
        except FormatError as error:
            lines.append(str(error))
    return lines


def save_set(home: Home, found: QuickReplySet) -> Path:
    path = _set_path(home, found.name)
    write_json(path, found.to_json())
    return path


def delete_set(home: Home, name: str) -> None:
    path = _set_path(home, name)
    if path.is_file():
        path.unlink()


def save_links(home: Home, library: QuickReplyLibrary) -> None:
    write_json(home.quick_replies_file, {"setList": library.global_sets})


def read_global_variables(home: Home) -> dict[str, Any]:
    path = home.global_variables_file
    if not path.is_file():
        return {}
    value = read_json(path)
    if not isinstance(value, dict):
        raise FormatError("全局变量文件应为 JSON 对象", path=path)
    return value


def write_global_variables(home: Home, values: dict[str, Any]) -> None:
    write_json(home.global_variables_file, values)


__all__ = [
    "damaged_sets",
    "delete_set",
    "load_library",
    "read_global_variables",
    "read_set",
    "save_links",
    "save_set",
    "write_global_variables",
]
