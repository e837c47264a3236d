"""``/api/vault``: snapshots of the data folder — list, take one, diff two, restore."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.library import Snapshots

from .deps import home_of

router = APIRouter(prefix="/api")


def _vault(request: Request) -> Snapshots:
    return Snapshots(home_of(request))


@router.get("/vault")
def snapshots(request: Request) -> list[dict[str, Any]]:
    """Snapshots, newest first (id, time, reason, files, size)."""
    return [{**info.to_json(), "size": info.size} for info in reversed(_vault(request).snapshots())]


class SnapshotBody(BaseModel):
    reason: str = "web"


@router.post("/vault/snapshot")
def snapshot(request: Request, body: SnapshotBody | None = None) -> dict[str, Any]:
    info = _vault(request).take(body.reason if body else "web")
    return {"snapshot": info.to_json() if info else None}


@router.get("/vault/diff")
def diff(request: Request, a: str, b: str, path: str | None = None) -> dict[str, Any]:
    """Files added, removed and changed from *a* to *b*; with *path* of a file, its text diff."""
    found = _vault(request).diff(a, b, path)
    result = found.diff
    text = ""
    if found.text is not None and not (result.added or result.removed) and result.changed == [found.path]:
        text = found.text
    return {"a": result.a, "b": result.b, "added": result.added, "removed": result.removed,
            "changed": result.changed, "text": text}  # fmt: skip


class RestoreBody(BaseModel):
    snapshot: str
    path: str | None = None


@router.post("/vault/restore")
def restore(request: Request, body: RestoreBody) -> dict[str, Any]:
    """Bring back a snapshot (or one file/folder of it); the state before is snapshotted first."""
    result = _vault(request).restore(body.snapshot, body.path or None)
    return {"snapshot": result.snapshot_id, "written": result.written, "removed": result.removed,
            "unchanged": result.unchanged, "before": result.before}  # fmt: skip
