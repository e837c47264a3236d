"""``/api/preset/{name}`` and friends: edit a library preset (prompt texts, the prompt order, the
samplers) in the preset file itself, use a preset for a card's tavern mode without declaring it, and
pin samplers on a connection (``[providers.<name>.sampler]`` in ``config.toml``).

Preset files are written back atomically in their own JSON style with every other key kept; the
next beat reads them again (tavern mode as SillyTavern would, stage mode through its declaration).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.config_edit import remove_value, set_value
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
from peargarden.workspace.library import list_preset_names, lorebook_name

from ._json_style import JsonStyle, read_json_file, write_json_file
from .api_chat import hub_of
from .deps import home_of

router = APIRouter(prefix="/api")


def _path(request: Request, name: str) -> Path:
    stem = lorebook_name(name)
    if stem not in list_preset_names(home_of(request)):
        raise NotFound(f"预设库里没有「{stem}」（no such preset）")
    return home_of(request).presets_dir / f"{stem}.json"


def _read(path: Path) -> tuple[dict[str, Any], JsonStyle]:
    value, style = read_json_file(path, JsonStyle(indent="    "))
    if not isinstance(value, dict):
        raise BadInput("预设文件不是 JSON 对象", path=path.name)
    return value, style


def _write(path: Path, value: dict[str, Any], style: JsonStyle) -> None:
    text = style.dumps(value)
    read_preset(text.encode("utf-8"), path.name)  # still a preset SillyTavern would load
    write_json_file(path, value, style)


def _change(request: Request, name: str, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    path = _path(request, name)
    value, style = _read(path)
    _write(path, edit(value), style)
    return preset(request, name)


@router.get("/preset/{name}")
def preset(request: Request, name: str) -> dict[str, Any]:
    path = _path(request, name)
    value, _ = _read(path)
    return {
        "name": path.stem,
        "prompts": [
            {key: p.get(key) for key in ("identifier", "name", "role", "content", "system_prompt", "marker",
                                         "injection_position", "injection_depth")}
            for p in prompts(value)
        ],
        "order": [{"identifier": e.get("identifier"), "enabled": e.get("enabled") is not False}
                  for e in global_order(value)],
        "samplers": {key: value.get(key) for key in SAMPLERS},
    }


class PromptBody(BaseModel):
    identifier: str
    changes: dict[str, Any]


@router.post("/preset/{name}/prompt")
def edit_prompt(request: Request, name: str, body: PromptBody) -> dict[str, Any]:
    """One prompt's text (``content``), ``name`` or ``role``."""
    return _change(request, name, lambda value: set_prompt(value, body.identifier, body.changes))


class OrderBody(BaseModel):
    order: list[dict[str, Any]]


@router.post("/preset/{name}/order")
def edit_order(request: Request, name: str, body: OrderBody) -> dict[str, Any]:
    """The prompt order and switches (the global Chat Completion order)."""
    return _change(request, name, lambda value: set_order(value, body.order))


class SamplerBody(BaseModel):
    values: dict[str, Any]


@router.post("/preset/{name}/samplers")
def edit_samplers(request: Request, name: str, body: SamplerBody) -> dict[str, Any]:
    return _change(request, name, lambda value: set_samplers(value, body.values))


class UseBody(BaseModel):
    preset: str  # "" = none (SillyTavern's defaults)


@router.post("/presets/{card}/use")
def use_preset(request: Request, card: str, body: UseBody) -> dict[str, Any]:
    """The card's preset (``卡.json`` ``preset``) without declaring it: tavern mode sends it as
    SillyTavern would; stage mode declares it at its next beat, as after ``pear tavern set preset``."""
    folder = open_card(home_of(request), card)
    settings = dict(folder.settings())
    if body.preset:
        settings["preset"] = _path(request, body.preset).stem
    else:
        settings.pop("preset", None)
    folder.write_settings(settings)
    return {"card": folder.folder, "preset": settings.get("preset", "")}


@router.get("/connections/samplers")
def connection_samplers(request: Request) -> dict[str, Any]:
    settings = load_settings(home_of(request).config_file)
    return {"main": settings.main().provider, "names": list(CONNECTION_SAMPLERS),
            "connections": {name: dict(conn.sampler) for name, conn in settings.providers.items()}}  # fmt: skip


@router.post("/connections/{name}/samplers")
def edit_connection_samplers(request: Request, name: str, body: SamplerBody) -> dict[str, Any]:
    """``[providers.<name>.sampler]`` in ``config.toml`` (``null`` takes a key out); comments kept."""
    config_file = home_of(request).config_file
    if name not in load_settings(config_file).providers:
        raise NotFound(f"config.toml 里没有连接 [providers.{name}]（unknown connection）")
    values = checked_samplers(body.values, CONNECTION_SAMPLERS)
    text = config_file.read_text(encoding="utf-8") if config_file.is_file() else ""
    table = f"providers.{name}.sampler"
    for key, value in values.items():
        text = remove_value(text, table, key) if value is None else set_value(text, table, key, value)
    settings = parse_settings(text, where=config_file)  # an invalid result changes nothing
    atomic.write_text(config_file, text)
    for session in hub_of(request).open_sessions():  # open chats of that connection follow at once
        retune(session.resolved.provider, name, settings.providers[name].sampler)
    return connection_samplers(request)
