"""``/api/personas``: who the user plays — the library's personas (``library/personas/``), add or
change one.  A chat picks one when it starts (``POST /api/chats/{card}`` with ``persona``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.personas import load_persona
from peargarden.errors import BadInput
from peargarden.workspace import atomic
from peargarden.workspace.home import sanitize_name

from .deps import home_of

router = APIRouter(prefix="/api")


@router.get("/personas")
def personas(request: Request) -> list[dict[str, Any]]:
    folder = home_of(request).personas_dir
    if not folder.is_dir():
        return []
    names = sorted({p.stem for p in folder.iterdir() if p.suffix in (".json", ".md", ".txt") and p.is_file()})
    found = [load_persona(folder, name) for name in names]
    return [{"name": p.name, "description": p.description} for p in found]


class PersonaBody(BaseModel):
    name: str
    description: str = ""


@router.post("/personas")
def save_persona(request: Request, body: PersonaBody) -> dict[str, Any]:
    """Add a persona, or change the description of one (``library/personas/<name>.json``)."""
    name = body.name.strip()
    stem = sanitize_name(name)
    if not stem:
        raise BadInput(f"人设名不合法：{body.name!r}")
    path = home_of(request).personas_dir / f"{stem}.json"
    atomic.write_json(path, {"name": name, "description": body.description.strip()})
    return {"name": name, "description": body.description.strip()}
