"""``/api/entries/{card}``: every heading of the prompt files as a switch, with edit.

The files: the global ``APPEND_SYSTEM.md``, the card's ``APPEND_SYSTEM.md`` and ``AGENTS.md`` (only
those that exist).  The file is the truth: a switch wraps or unwraps the entry in ``<!-- -->`` lines,
an edit replaces the entry's body; the next beat reads the file again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.errors import BadInput, NotFound
from peargarden.stage.entries import find_entry, parse_entries, set_entry_content, toggle_entry
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card

from .deps import home_of

router = APIRouter(prefix="/api")

FileKey = Literal["global", "card", "agents"]
LABELS = {"global": "全局 APPEND_SYSTEM.md", "card": "卡级 APPEND_SYSTEM.md", "agents": "AGENTS.md"}


def entry_file(request: Request, card: str, key: str) -> Path:
    home = home_of(request)
    if key == "global":
        return home.append_system_file
    folder = open_card(home, card)
    if key == "card":
        return folder.path / "APPEND_SYSTEM.md"
    if key == "agents":
        return folder.path / "AGENTS.md"
    raise BadInput(f"没有这种提示词文件：{key}")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFound(f"文件不存在：{path.name}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"无法读取：{error}", path=path) from None


@router.get("/entries/{card}")
def list_entries(request: Request, card: str) -> list[dict[str, Any]]:
    files = []
    for key, label in LABELS.items():
        path = entry_file(request, card, key)
        if not path.is_file():
            continue
        entries = [
            {"name": e.name, "title": e.title, "level": e.level, "enabled": e.enabled, "source": e.source,
             "content": e.content}
            for e in parse_entries(_read(path))
            if e.name
        ]
        files.append({"file": key, "label": label, "entries": entries})
    return files


class SwitchBody(BaseModel):
    name: str
    enabled: bool


class EditBody(BaseModel):
    name: str
    content: str


def _change(path: Path, name: str) -> str:
    text = _read(path)
    if find_entry(text, name) is None:
        raise NotFound(f"{path.name} 里没有名为「{name}」的条目")
    return text


@router.post("/entries/{card}/{file}/switch")
def switch(request: Request, card: str, file: FileKey, body: SwitchBody) -> dict[str, Any]:
    path = entry_file(request, card, file)
    text = _change(path, body.name)
    atomic.write_text(path, toggle_entry(text, body.name, body.enabled))
    return {"name": body.name, "enabled": body.enabled}


@router.post("/entries/{card}/{file}/edit")
def edit(request: Request, card: str, file: FileKey, body: EditBody) -> dict[str, Any]:
    path = entry_file(request, card, file)
    text = _change(path, body.name)
    atomic.write_text(path, set_entry_content(text, body.name, body.content))
    return {"name": body.name}
