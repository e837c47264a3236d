"""Library presets for the editor — read one, change its prompt texts, order or samplers in the file
itself (its own JSON style, every other key kept, still a valid preset), use one for a card's tavern
mode without declaring it — and a connection's pinned samplers (``[providers.<name>.sampler]``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput, NotFound
from peargarden.formats.presets import read_preset
from peargarden.providers.sampled import retune
from peargarden.tavern.preset_edit import (
    CONNECTION_SAMPLERS,
    SAMPLERS,
    checked_samplers,
    global_order,
    prompts,
    set_order,
    set_prompt,
    set_samplers,
)
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card
from peargarden.workspace.config import load_settings, parse_settings
from peargarden.workspace.home import Home
from peargarden.workspace.library import list_preset_names, lorebook_name, no_such_preset
from peargarden.workspace.text_files import read_user_text

from ..settings.config_edit import remove_value, set_value
from .json_files import JsonStyle, read_json_file, write_json_file

_PROMPT_KEYS = ("identifier", "name", "role", "content", "system_prompt", "marker", "injection_position",
                "injection_depth")  # fmt: skip


def preset_file(home: Home, name: str) -> Path:
    stem = lorebook_name(name)
    if stem not in list_preset_names(home):
        raise no_such_preset(home, stem)
    return home.presets_dir / f"{stem}.json"


def _read(path: Path) -> tuple[dict[str, Any], JsonStyle]:
    value, style = read_json_file(path, JsonStyle(indent="    "))
    if not isinstance(value, dict):
        raise BadInput("预设文件不是 JSON 对象", path=path.name)
    return value, style


def read_preset_view(home: Home, name: str) -> dict[str, Any]:
    path = preset_file(home, name)
    value, _ = _read(path)
    return {
        "name": path.stem,
        "prompts": [{key: p.get(key) for key in _PROMPT_KEYS} for p in prompts(value)],
        "order": [
            {"identifier": e.get("identifier"), "enabled": e.get("enabled") is not False} for e in global_order(value)
        ],
        "samplers": {key: value.get(key) for key in SAMPLERS},
    }


def change_preset(home: Home, name: str, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """Apply *edit* (a pure change of the preset) and write the file back; the view as :func:`read_preset_view`."""
    path = preset_file(home, name)
    value, style = _read(path)
    changed = edit(value)
    read_preset(style.dumps(changed).encode("utf-8"), path.name)  # still a preset SillyTavern would load
    write_json_file(path, changed, style)
    return read_preset_view(home, name)


def edit_prompt(home: Home, name: str, identifier: str, changes: dict[str, Any]) -> dict[str, Any]:
    return change_preset(home, name, lambda value: set_prompt(value, identifier, changes))


def edit_order(home: Home, name: str, order: list[dict[str, Any]]) -> dict[str, Any]:
    return change_preset(home, name, lambda value: set_order(value, order))


def edit_samplers(home: Home, name: str, values: dict[str, Any]) -> dict[str, Any]:
    return change_preset(home, name, lambda value: set_samplers(value, values))


def use_preset(home: Home, card: str, preset: str) -> dict[str, Any]:
    """The card's preset (``卡.json`` ``preset``; "" = none), nothing declared."""
    folder = open_card(home, card)
    settings = dict(folder.settings())
    if preset:
        settings["preset"] = preset_file(home, preset).stem
    else:
        settings.pop("preset", None)
    folder.write_settings(settings)
    return {"card": folder.folder, "preset": settings.get("preset", "")}


def connection_samplers(home: Home) -> dict[str, Any]:
    settings = load_settings(home.config_file)
    return {"main": settings.main().provider, "names": list(CONNECTION_SAMPLERS),
            "connections": {name: dict(conn.sampler) for name, conn in settings.providers.items()}}  # fmt: skip


def set_connection_samplers(
    home: Home, name: str, values: dict[str, Any], open_providers: Iterable[Any]
) -> dict[str, Any]:
    """``[providers.<name>.sampler]`` in ``config.toml`` (``None`` takes a key out; comments kept); the
    providers of open chats on that connection get the new values at once."""
    config_file = home.config_file
    if name not in load_settings(config_file).providers:
        raise NotFound(f"config.toml 里没有连接 [providers.{name}]（unknown connection）")
    checked = checked_samplers(values, CONNECTION_SAMPLERS)
    text = read_user_text(config_file) if config_file.is_file() else ""
    table = f"providers.{name}.sampler"
    for key, value in checked.items():
        text = remove_value(text, table, key) if value is None else set_value(text, table, key, value)
    settings = parse_settings(text, where=config_file)  # an invalid result changes nothing
    atomic.write_text(config_file, text)
    for provider in open_providers:
        retune(provider, name, settings.providers[name].sampler)
    return connection_samplers(home)
