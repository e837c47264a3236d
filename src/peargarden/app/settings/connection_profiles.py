"""Connection profiles, as SillyTavern's: a connection, a model, a thinking level and a preset saved
under one name, applied in one choice.

They live in ``config.toml`` as ``[profiles.<name>]`` tables (``provider``, ``model``, ``thinking``,
``preset``), beside everything else the user edits; applying one writes its values into ``[model]``
and the top-level ``preset`` (comments kept, see :mod:`.config_edit`).  The profile in use is the one
whose values are the ones in force.
"""

from __future__ import annotations

import msgspec

from peargarden.errors import BadInput, NotFound
from peargarden.workspace import atomic
from peargarden.workspace.config import THINKING_LEVELS, load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.text_files import read_user_text

from .config_edit import Value, config_document, remove_table, set_values

TABLE = "profiles"
MAX_NAME = 60
_FIELDS = ("provider", "model", "thinking", "preset")


class ConnectionProfile(msgspec.Struct, frozen=True):
    name: str
    provider: str
    model: str = ""
    thinking: str = ""
    preset: str = ""  # tavern mode's preset ("" leaves the preset as it is)


def list_profiles(home: Home) -> list[ConnectionProfile]:
    """The profiles config.toml names, in its order (a table that is not one is skipped)."""
    tables = config_document(home.config_file).get(TABLE)
    found: list[ConnectionProfile] = []
    for name, table in tables.items() if isinstance(tables, dict) else []:
        if isinstance(table, dict) and isinstance(table.get("provider"), str):
            values = {key: str(table.get(key) or "") for key in _FIELDS}
            found.append(ConnectionProfile(name=str(name), **values))
    return found


def active_profile(home: Home) -> str:
    """The name of the profile whose values are in force ("" when none is)."""
    settings = load_settings(home.config_file)
    model = settings.main()
    for profile in list_profiles(home):
        same = (profile.provider, profile.model) == (model.provider, model.model)
        if (
            same
            and (not profile.thinking or profile.thinking == model.thinking)
            and (not profile.preset or profile.preset == settings.preset)
        ):
            return profile.name
    return ""


def _checked_name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned or len(cleaned) > MAX_NAME or any(ch in cleaned for ch in '."[]'):
        raise BadInput(f'配置名不合法：{name!r}（不超过 {MAX_NAME} 个字，不含 . " [ ]）')
    return cleaned


def save_profile(home: Home, name: str, provider: str, model: str = "", thinking: str = "", preset: str = "") -> str:
    """Keep (or change) profile *name*; checked as config.toml checks the same values."""
    name = _checked_name(name)
    settings = load_settings(home.config_file)
    if provider != "local" and provider not in settings.providers:
        raise BadInput(f"config.toml 里没有连接 [providers.{provider}]")
    if thinking and thinking not in THINKING_LEVELS:
        raise BadInput(f"思考档位只能是 {' | '.join(THINKING_LEVELS)}，实际是 {thinking!r}")
    values = {"provider": provider, "model": model, "thinking": thinking, "preset": preset}
    changes: dict[tuple[str, str], Value] = {(f"{TABLE}.{name}", key): value for key, value in values.items()}
    set_values(home.config_file, changes)
    return name


def delete_profile(home: Home, name: str) -> None:
    """Forget profile *name* (its values stay in force if it was the one in use)."""
    if name not in {p.name for p in list_profiles(home)}:
        raise NotFound(f"没有连接配置「{name}」")
    atomic.write_text(home.config_file, remove_table(read_user_text(home.config_file), f"{TABLE}.{name}"))


def apply_profile(home: Home, name: str) -> ConnectionProfile:
    """Put profile *name* in force: its connection, model and thinking into ``[model]``, its preset
    (when it names one) as the preset."""
    profile = next((p for p in list_profiles(home) if p.name == name), None)
    if profile is None:
        raise NotFound(f"没有连接配置「{name}」")
    changes: dict[tuple[str, str], Value] = {("model", "provider"): profile.provider, ("model", "model"): profile.model}
    if profile.thinking:
        changes[("model", "thinking")] = profile.thinking
    if profile.preset:
        changes[("", "preset")] = profile.preset
    set_values(home.config_file, changes)
    return profile
