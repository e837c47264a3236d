"""``/api/settings``: what ``config.toml`` says (read), connections and their model lists, personas,
and API keys typed into the page (stored in the data folder with mode 0600; never sent back).
"""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from peargarden.app.settings import (
    ConfigValue,
    active_profile,
    apply_profile,
    connection_models,
    delete_profile,
    list_profiles,
    local_path_value,
    save_connection_key,
    save_profile,
    set_values,
    settings_page,
)
from peargarden.errors import BadInput

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")


@router.get("/settings")
def settings(request: Request) -> dict[str, Any]:
    """config.toml as the page shows it, with the connection profiles and the one in force."""
    home = home_of(request)
    view = settings_page(home)
    view["profiles"] = [msgspec.structs.asdict(profile) for profile in list_profiles(home)]
    view["active_profile"] = active_profile(home)
    return view


class ProfileBody(BaseModel):
    name: str = Field(max_length=200)
    provider: str = Field(max_length=200)
    model: str = Field("", max_length=500)
    thinking: str = ""
    preset: str = Field("", max_length=500)


@router.post("/settings/profiles")
def save_profile_route(request: Request, body: ProfileBody) -> dict[str, Any]:
    """Keep a connection profile (SillyTavern's): connection, model, thinking and preset under a name."""
    save_profile(home_of(request), body.name, body.provider, body.model, body.thinking, body.preset)
    return settings(request)


@router.post("/settings/profiles/{name}/apply")
def apply_profile_route(request: Request, name: str) -> dict[str, Any]:
    """Put a profile in force; open chats not playing pick it up from their next request."""
    apply_profile(home_of(request), name)
    hub_of(request).settings_changed()
    return settings(request)


@router.post("/settings/profiles/{name}/delete")
def delete_profile_route(request: Request, name: str) -> dict[str, Any]:
    delete_profile(home_of(request), name)
    return settings(request)


class KeyBody(BaseModel):
    connection: str
    key: str


@router.post("/settings/key")
def save_key(request: Request, body: KeyBody) -> dict[str, Any]:
    """Store a connection's API key (``keys/<connection>.key``, 0600).  The key is not echoed."""
    save_connection_key(home_of(request), body.connection, body.key)
    return {"connection": body.connection, "stored": True}


@router.get("/settings/models")
def models(request: Request, connection: str | None = None) -> dict[str, Any]:
    """The model list of a connection's endpoint (``/models``)."""
    return connection_models(home_of(request), connection)


class ModelBody(BaseModel):
    provider: str | None = None
    model: str | None = None
    thinking: str | None = None
    local_path: str | None = None  # the embedded model: a catalog key, a GGUF path, "" = the set-up's choice


class ConnectionBody(BaseModel):
    name: str
    base_url: str | None = None
    api_key_env: str | None = None
    profile: str | None = None
    stream: bool | None = None  # False: replies asked for whole (SillyTavern's streaming switch)


class SandboxBody(BaseModel):
    blacklist: list[str] | None = None
    no_ask_prefixes: list[str] | None = None


class SettingsBody(BaseModel):
    user_name: str | None = None
    user_persona: str | None = None
    mode: str | None = None
    creation_mode: str | None = None
    scan_depth: int | None = None
    max_lore_injections: int | None = None
    model: ModelBody | None = None
    side_model: ModelBody | None = None
    connection: ConnectionBody | None = None
    sandbox: SandboxBody | None = None


@router.post("/settings")
def change_settings(request: Request, body: SettingsBody) -> dict[str, Any]:
    """Change values in ``config.toml`` in place (comments kept); invalid values change nothing."""
    changes: dict[tuple[str, str], ConfigValue] = {}
    for key in ("user_name", "user_persona", "mode", "creation_mode", "scan_depth", "max_lore_injections"):
        value = getattr(body, key)
        if value is not None:
            changes[("", key)] = value
    for table, model in (("model", body.model), ("side_model", body.side_model)):
        if model is not None:
            for key in ("provider", "model", "thinking"):
                if getattr(model, key) is not None:
                    changes[(table, key)] = getattr(model, key)
            if model.local_path is not None:
                changes[(table, "local_path")] = local_path_value(model.local_path)
    if body.connection is not None:
        name = body.connection.name.strip()
        if not name or name == "local" or any(ch in name for ch in '."[]'):
            raise BadInput(f"连接名不合法：{name!r}")
        for key in ("base_url", "api_key_env", "profile"):
            if getattr(body.connection, key) is not None:
                changes[(f"providers.{name}", key)] = getattr(body.connection, key).strip()
        if body.connection.stream is not None:
            changes[(f"providers.{name}", "stream")] = body.connection.stream
    if body.sandbox is not None:
        for key in ("blacklist", "no_ask_prefixes"):
            items = getattr(body.sandbox, key)
            if items is not None:
                changes[("sandbox", key)] = [item for item in items if item.strip()]
    if not changes:
        raise BadInput("没有要改的设置（nothing to change）")
    set_values(home_of(request).config_file, changes)
    hub_of(request).settings_changed()
    return settings(request)
