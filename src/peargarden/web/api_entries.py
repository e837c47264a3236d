"""``/api/entries/{card}``: every heading of the prompt files as a switch, with edit.

The files: the global ``APPEND_SYSTEM.md``, the card's ``APPEND_SYSTEM.md`` and ``AGENTS.md`` (only
those that exist).  The file is the truth: a switch wraps or unwraps the entry in ``<!-- -->`` lines,
an edit replaces the entry's body; the next beat reads the file again.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.cards import FILE_LABELS, FileKey, edit_prompt_entry, named_entries, prompt_file, switch_entry

from .deps import home_of

router = APIRouter(prefix="/api")


@router.get("/entries/{card}")
def list_entries(request: Request, card: str) -> list[dict[str, Any]]:
    home = home_of(request)
    files = []
    for key, label in FILE_LABELS.items():
        path = prompt_file(home, card, key)
        if not path.is_file():
            continue
        entries = [
            {
                "name": e.name,
                "title": e.title,
                "level": e.level,
                "enabled": e.enabled,
                "source": e.source,
                "content": e.content,
            }
            for e in named_entries(path)
        ]
        files.append({"file": key, "label": label, "entries": entries})
    return files


class SwitchBody(BaseModel):
    name: str
    enabled: bool


class EditBody(BaseModel):
    name: str
    content: str


@router.post("/entries/{card}/{file}/switch")
def switch(request: Request, card: str, file: FileKey, body: SwitchBody) -> dict[str, Any]:
    switch_entry(prompt_file(home_of(request), card, file), body.name, body.enabled)
    return {"name": body.name, "enabled": body.enabled}


@router.post("/entries/{card}/{file}/edit")
def edit(request: Request, card: str, file: FileKey, body: EditBody) -> dict[str, Any]:
    edit_prompt_entry(prompt_file(home_of(request), card, file), body.name, body.content)
    return {"name": body.name}
