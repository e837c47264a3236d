"""``/api/embedded/setup``: the embedded model installed from the page — the runtime built, the model
fetched, the self-test — in the background, one at a time, cancellable, its state kept for a page
that reloads (:mod:`peargarden.app.settings.embedded_setup`: the same work as ``pear models --install``
and ``scripts/setup.sh --local``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.settings import SetupJob

router = APIRouter(prefix="/api/embedded/setup")


def job_of(request: Request) -> SetupJob:
    job: SetupJob = request.app.state.setup_job
    return job


class StartBody(BaseModel):
    portable: bool = False  # the runtime built without -march=native


@router.get("")
def setup_state(request: Request) -> dict[str, Any]:
    """``{"state", "steps": [{"name", "state", "text", "done", "total", "unit", "seconds", "left"}],
    "error", "started", "finished"}``; ``idle`` before any."""
    return job_of(request).state()


@router.post("")
def start(request: Request, body: StartBody | None = None) -> dict[str, Any]:
    """Start the work; while one runs, its state (no second one)."""
    return job_of(request).start(portable=bool(body and body.portable))


@router.post("/cancel")
def cancel(request: Request) -> dict[str, Any]:
    """Stop the work; the step running stops, what was finished stays."""
    return job_of(request).cancel()
