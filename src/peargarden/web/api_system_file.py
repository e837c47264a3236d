"""``/api/system-file``: the data folder's ``SYSTEM.md`` written back from the bundled copy, the fix the
chat page offers beside the warning a stage beat gives when the file is missing or empty; undone
through the vault (:mod:`peargarden.app.library.system_file`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from peargarden.app.library import SYSTEM_FILE_FIX, undo_bundled_system, write_bundled_system

from .deps import home_of, hub_of

router = APIRouter(prefix="/api/system-file")


@router.post("")
def write(request: Request) -> dict[str, str]:
    """Write the bundled ``SYSTEM.md`` (a vault snapshot first): ``{"snapshot"}``, what undo takes."""
    undo = write_bundled_system(home_of(request))
    hub_of(request).fixed(SYSTEM_FILE_FIX)
    return undo


class UndoBody(BaseModel):
    snapshot: str = Field(max_length=200)


@router.post("/undo")
def undo(request: Request, body: UndoBody) -> dict[str, bool]:
    """``SYSTEM.md`` as it was before the write (removed again when there was none)."""
    undo_bundled_system(home_of(request), body.snapshot)
    return {"ok": True}
