"""API keys typed into a front, kept in the data folder: ``keys/<connection>.key``, mode 0600.

``config.toml`` names keys by environment variable (``api_key_env``) or holds them itself
(``api_key``); a key stored here is used when neither gives one.  Keys are written, never read back
to a front: :func:`has_stored_key` says only whether one is there.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec.structs

from peargarden.errors import BadInput
from peargarden.workspace import atomic
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home, sanitize_name

KEYS_DIR = "keys"


def key_file(home: Home, connection: str) -> Path:
    name = sanitize_name(connection)
    if not name or name != connection:
        raise BadInput(f"连接名不合法：{connection!r}")
    return home.root / KEYS_DIR / f"{name}.key"


def store_key(home: Home, connection: str, key: str) -> None:
    key = key.strip()
    if not key or any(ch.isspace() for ch in key):
        raise BadInput("密钥不能为空，也不能含空白（bad key）")
    atomic.write_bytes(key_file(home, connection), key.encode("utf-8"), mode=0o600)


def forget_key(home: Home, connection: str) -> None:
    path = key_file(home, connection)
    if path.exists():
        path.unlink()


def has_stored_key(home: Home, connection: str) -> bool:
    try:
        return key_file(home, connection).is_file()
    except BadInput:
        return False


def with_stored_key(home: Home, settings: Settings) -> Settings:
    """*settings* with stored keys filled into connections that have no key of their own."""
    changed = {}
    for name, conn in settings.providers.items():
        if conn.api_key or (conn.api_key_env and os.environ.get(conn.api_key_env)):
            continue
        try:
            path = key_file(home, name)
            key = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
        except (BadInput, OSError):
            continue
        if key:
            changed[name] = msgspec.structs.replace(conn, api_key=key)
    if not changed:
        return settings
    return msgspec.structs.replace(settings, providers={**settings.providers, **changed})
