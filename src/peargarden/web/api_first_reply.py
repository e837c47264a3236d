"""``/api/first-reply``: what the home page needs to get a new user a first reply — whether the main
model can answer, and a connection made inline (address, key, model list, a test, then in force) or
the embedded model put in force.  The settings page's ways of storing (``config.toml`` edited in place,
keys in ``keys/``), in one step (:mod:`peargarden.app.settings.first_reply`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from peargarden.app.settings import connect, endpoint, endpoint_models, readiness, try_endpoint, use_embedded

from .deps import home_of, hub_of

router = APIRouter(prefix="/api/first-reply")


class EndpointBody(BaseModel):
    base_url: str = Field(max_length=2000)
    key: str = Field("", max_length=2000)  # typed in: stored 0600 on connect, never sent back
    key_env: str = Field("", max_length=200)  # or the name of an environment variable holding it
    model: str = Field("", max_length=500)


@router.get("")
def first_reply(request: Request) -> dict[str, Any]:
    """Whether the main model can answer now, and the embedded model's state."""
    return readiness(home_of(request))


@router.post("/models")
def models(body: EndpointBody) -> dict[str, Any]:
    """The endpoint's model list, before anything is saved."""
    return {"models": endpoint_models(endpoint(body.base_url, body.key, body.key_env))}


@router.post("/try")
def try_it(body: EndpointBody) -> dict[str, Any]:
    """One short request to the model: ``{"reply", "seconds"}``, or the error's line."""
    return try_endpoint(endpoint(body.base_url, body.key, body.key_env), body.model)


@router.post("/connect")
def connect_route(request: Request, body: EndpointBody) -> dict[str, Any]:
    """Save the connection (and its key) and make it the main model; open chats follow."""
    home = home_of(request)
    name = connect(home, endpoint(body.base_url, body.key, body.key_env), body.model)
    hub_of(request).settings_changed()
    return {**readiness(home), "connection": name}


@router.post("/embedded")
def embedded(request: Request) -> dict[str, Any]:
    """The embedded model as the main model."""
    home = home_of(request)
    use_embedded(home)
    hub_of(request).settings_changed()
    return readiness(home)
