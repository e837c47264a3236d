"""``/api/preset/{name}`` and friends: edit a library preset (prompt texts, the prompt order, the
samplers) in the preset file itself, use a preset for a card's tavern mode without declaring it, and
pin samplers on a connection (``[providers.<name>.sampler]`` in ``config.toml``).  A thin front over
:mod:`peargarden.app.library.preset_files`; the next beat reads the files again."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app import library

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")


@router.get("/preset/{name}")
def preset(request: Request, name: str) -> dict[str, Any]:
    return library.read_preset_view(home_of(request), name)


class PromptBody(BaseModel):
    identifier: str
    changes: dict[str, Any]


@router.post("/preset/{name}/prompt")
def edit_prompt(request: Request, name: str, body: PromptBody) -> dict[str, Any]:
    """One prompt's text (``content``), ``name`` or ``role``."""
    return library.edit_prompt(home_of(request), name, body.identifier, body.changes)


class OrderBody(BaseModel):
    order: list[dict[str, Any]]


@router.post("/preset/{name}/order")
def edit_order(request: Request, name: str, body: OrderBody) -> dict[str, Any]:
    """The prompt order and switches (the global Chat Completion order)."""
    return library.edit_order(home_of(request), name, body.order)


class SamplerBody(BaseModel):
    values: dict[str, Any]


@router.post("/preset/{name}/samplers")
def edit_samplers(request: Request, name: str, body: SamplerBody) -> dict[str, Any]:
    return library.edit_samplers(home_of(request), name, body.values)


class UseBody(BaseModel):
    preset: str  # "" = none (SillyTavern's defaults)


@router.post("/presets/{card}/use")
def use_preset(request: Request, card: str, body: UseBody) -> dict[str, Any]:
    """Tavern mode sends it as SillyTavern would; stage mode declares it at its next beat."""
    return library.use_preset(home_of(request), card, body.preset)


@router.get("/connections/samplers")
def connection_samplers(request: Request) -> dict[str, Any]:
    return library.connection_samplers(home_of(request))


@router.post("/connections/{name}/samplers")
def edit_connection_samplers(request: Request, name: str, body: SamplerBody) -> dict[str, Any]:
    providers = [session.provider for session in hub_of(request).open_sessions()]
    return library.set_connection_samplers(home_of(request), name, body.values, providers)
