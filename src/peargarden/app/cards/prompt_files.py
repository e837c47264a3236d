"""The stage's prompt files for the fronts (``APPEND_SYSTEM.md``, a card's ``APPEND_SYSTEM.md`` and
``AGENTS.md``): their ``#`` entries listed, switched on or off, edited.

The file is the truth: a switch wraps or unwraps the entry in ``<!-- -->`` lines
(:mod:`peargarden.stage.entries`), an edit replaces the entry's body, every write is atomic, and the
next beat reads the file again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from peargarden.errors import BadInput, NotFound
from peargarden.stage.entries import Entry, find_entry, parse_entries, set_entry_content, toggle_entry
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home
from peargarden.workspace.text_files import read_user_text

FileKey = Literal["global", "card", "agents"]
FILE_LABELS: dict[FileKey, str] = {
    "global": "全局 APPEND_SYSTEM.md",
    "card": "卡级 APPEND_SYSTEM.md",
    "agents": "AGENTS.md",
}


def prompt_file(home: Home, card: str, key: str) -> Path:
    """The prompt file *key* names: the global one, or the card's own (the card must exist)."""

    if key == "global":
        return home.append_system_file
    folder = open_card(home, card)
    if key == "card":
        return folder.path / "APPEND_SYSTEM.md"
    if key == "agents":
        return folder.path / "AGENTS.md"
    raise BadInput(f"没有这种提示词文件：{key}")


def read_prompt_file(path: Path) -> str:
    try:
        return read_user_text(path)
    except FileNotFoundError:
        raise NotFound(f"文件不存在：{path.name}") from None
    except OSError as error:
        raise BadInput(f"无法读取：{error}", path=path) from None


def named_entries(path: Path) -> list[Entry]:
    """The entries of the file at *path* that have a heading, in file order."""
    return [entry for entry in parse_entries(read_prompt_file(path)) if entry.name]


def _with_entry(path: Path, name: str) -> tuple[str, Entry]:
    text = read_prompt_file(path)
    entry = find_entry(text, name)
    if entry is None:
        raise NotFound(f"{path.name} 里没有名为「{name}」的条目")
    return text, entry


def switch_entry(path: Path, name: str, enabled: bool) -> bool:
    """Switch the entry *name* on or off; False when it already was (the file is then not written)."""
    text, entry = _with_entry(path, name)
    if entry.enabled == enabled:
        return False
    atomic.write_text(path, toggle_entry(text, name, enabled))
    return True


def edit_entry(path: Path, name: str, content: str) -> None:
    """Replace the body of the entry *name* (its heading and switch stay)."""
    text, _entry = _with_entry(path, name)
    atomic.write_text(path, set_entry_content(text, name, content))
