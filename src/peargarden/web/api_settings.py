"""``/api/settings``: what ``config.toml`` says (read), connections and their model lists, personas,
and API keys typed into the page (stored in the data folder with mode 0600; never sent back).
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.connections import resolve_provider
from peargarden.app.stored_keys import has_stored_key, store_key, with_stored_key
from peargarden.errors import BadInput
from peargarden.workspace.config import ModelSettings, load_settings

from .deps import home_of

router = APIRouter(prefix="/api")


def _model(model: ModelSettings) -> dict[str, str]:
    return {"provider": model.provider, "model": model.model, "thinking": model.thinking}


@router.get("/settings")
def settings(request: Request) -> dict[str, Any]:
    home = home_of(request)
    current = load_settings(home.config_file)
    connections = []
    for name, conn in current.providers.items():
        if conn.api_key:
            key = "config.toml"
        elif conn.api_key_env and os.environ.get(conn.api_key_env):
            key = f"${conn.api_key_env}"
        elif has_stored_key(home, name):
            key = "stored"
        else:
            key = ""
        connections.append({"name": name, "base_url": conn.base_url, "api_key_env": conn.api_key_env,
                            "profile": conn.profile, "key": key})  # fmt: skip
    personas = sorted(p.stem for p in home.personas_dir.glob("*.json")) if home.personas_dir.is_dir() else []
    return {
        "user_name": current.user_name,
        "user_persona": current.user_persona,
        "mode": current.mode,
        "creation_mode": current.creation_mode,
        "scan_depth": current.scan_depth,
        "max_lore_injections": current.max_lore_injections,
        "model": _model(current.main()),
        # As written: an empty field follows the main model ("follow the main model" on the page).
        "side_model": _model(current.side_model),
        "side_model_effective": _model(current.side()),
        "connections": connections,
        "personas": personas,
        "sandbox": {"blacklist": list(current.sandbox.blacklist),
                    "no_ask_prefixes": list(current.sandbox.no_ask_prefixes)},
        "config_file": "config.toml",
    }


class KeyBody(BaseModel):
    connection: str
    key: str


@router.post("/settings/key")
def save_key(request: Request, body: KeyBody) -> dict[str, Any]:
    """Store a connection's API key (``keys/<connection>.key``, 0600).  The key is not echoed."""
    home = home_of(request)
    if body.connection not in load_settings(home.config_file).providers:
        raise BadInput(f"config.toml 里没有连接 [providers.{body.connection}]")
    store_key(home, body.connection, body.key)
    return {"connection": body.connection, "stored": True}


@router.get("/settings/models")
def models(request: Request, connection: str | None = None) -> dict[str, Any]:
    """The model list of a connection's endpoint (``/models``)."""
    home = home_of(request)
    current = with_stored_key(home, load_settings(home.config_file))
    import dataclasses

    if connection:
        if connection not in current.providers:
            raise BadInput(f"config.toml 里没有连接 [providers.{connection}]")
        current = dataclasses.replace(current, model=dataclasses.replace(current.model, provider=connection))
    if current.main().provider == "local":
        return {"connection": "local", "models": ["（内置本地模型）"]}
    resolved = resolve_provider(current)
    return {"connection": connection or current.main().provider, "models": resolved.provider.list_models()}


class ModelBody(BaseModel):
    provider: str | None = None
    model: str | None = None
    thinking: str | None = None


class ConnectionBody(BaseModel):
    name: str
    base_url: str | None = None
    api_key_env: str | None = None
    profile: str | None = None


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
    from peargarden.app.config_edit import Value, set_values

    changes: dict[tuple[str, str], Value] = {}
    for key in ("user_name", "user_persona", "mode", "creation_mode", "scan_depth", "max_lore_injections"):
        value = getattr(body, key)
        if value is not None:
            changes[("", key)] = value
    for table, model in (("model", body.model), ("side_model", body.side_model)):
        if model is not None:
            for key in ("provider", "model", "thinking"):
                if getattr(model, key) is not None:
                    changes[(table, key)] = getattr(model, key)
    if body.connection is not None:
        name = body.connection.name.strip()
        if not name or name == "local" or any(ch in name for ch in '."[]'):
            raise BadInput(f"连接名不合法：{name!r}")
        for key in ("base_url", "api_key_env", "profile"):
            if getattr(body.connection, key) is not None:
                changes[(f"providers.{name}", key)] = getattr(body.connection, key).strip()
    if body.sandbox is not None:
        for key in ("blacklist", "no_ask_prefixes"):
            items = getattr(body.sandbox, key)
            if items is not None:
                changes[("sandbox", key)] = [item for item in items if item.strip()]
    if not changes:
        raise BadInput("没有要改的设置（nothing to change）")
    set_values(home_of(request).config_file, changes)
    return settings(request)
