"""The settings page's view of ``config.toml`` (read), a connection's API key typed into the page
(stored in the data folder, mode 0600, never sent back) and a connection's model list."""

from __future__ import annotations

import os
from typing import Any

import msgspec.structs

from peargarden.errors import BadInput
from peargarden.workspace.config import ModelSettings, load_settings
from peargarden.workspace.home import Home

from .connections import resolve_provider
from .local_models import embedded_models
from .stored_keys import has_stored_key, store_key, with_stored_key


def _model(model: ModelSettings) -> dict[str, str]:
    return {
        "provider": model.provider,
        "model": model.model,
        "thinking": model.thinking,
        "local_path": model.local_path,
    }


def settings_view(home: Home) -> dict[str, Any]:
    """What config.toml says, as the settings page shows it: where each connection's key comes from
    (``config.toml``, ``$VARIABLE``, ``stored`` or none), never the key itself."""
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
                            "profile": conn.profile, "key": key, "stream": conn.stream})  # fmt: skip
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
        # The embedded models (fetched or not, the set-up's choice with its line): the page's switch.
        "embedded": embedded_models(),
        "personas": personas,
        "sandbox": {
            "blacklist": list(current.sandbox.blacklist),
            "no_ask_prefixes": list(current.sandbox.no_ask_prefixes),
        },
        "config_file": "config.toml",
    }


def save_connection_key(home: Home, connection: str, key: str) -> None:
    """Store the API key of a connection config.toml names (``keys/<connection>.key``, 0600)."""
    if connection not in load_settings(home.config_file).providers:
        raise BadInput(f"config.toml 里没有连接 [providers.{connection}]")
    store_key(home, connection, key)


def connection_models(home: Home, connection: str | None = None) -> dict[str, Any]:
    """The model list of *connection*'s endpoint (default: the main model's connection)."""

    current = with_stored_key(home, load_settings(home.config_file))
    if connection:
        if connection not in current.providers:
            raise BadInput(f"config.toml 里没有连接 [providers.{connection}]")
        current = msgspec.structs.replace(current, model=msgspec.structs.replace(current.model, provider=connection))
    if current.main().provider == "local":
        return {"connection": "local", "models": ["（内置本地模型）"]}
    resolved = resolve_provider(current)
    return {"connection": connection or current.main().provider, "models": resolved.provider.list_models()}
