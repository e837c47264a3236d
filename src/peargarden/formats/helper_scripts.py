"""TavernHelper (JS-Slash-Runner) scripts in a card's or a preset's ``extensions``, read, never run.

Two shapes are in use: ``extensions.tavern_helper`` — an object ``{"scripts": [...], "variables":
{...}}`` or the same as a list of ``[key, value]`` pairs — and the older
``extensions.TavernHelper_scripts`` (a list whose items may wrap the script in ``value``).  Either
may hold folders (``{"type": "folder", "scripts": [...]}``).  This module only reads them (what a
script is called, whether it is on, what it loads from where) so an import can say what will run
here; the scripts themselves are kept byte for byte wherever they are (nothing here writes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

_URL = re.compile(r"https?://[^\s'\"`)<>]+")
_MVU_BUNDLE = re.compile(r"MagVarUpdate|MagicalAstrogy", re.IGNORECASE)
_ZOD_SCHEMA = re.compile(r"registerMvuSchema|mvu_zod|\bz\.object\s*\(")


@dataclass(frozen=True)
class HelperScript:
    """One TavernHelper script: its name, whether it is enabled, its code and where it was found."""

    name: str
    enabled: bool
    content: str
    where: str  # "tavern_helper" or "TavernHelper_scripts"
    urls: tuple[str, ...] = field(default=())

    @property
    def kind(self) -> str:
        """``mvu`` (loads MagVarUpdate), ``zod`` (registers an MVU schema) or ``other``."""
        if _ZOD_SCHEMA.search(self.content):
            return "zod"
        if _MVU_BUNDLE.search(self.content):
            return "mvu"
        return "other"


def _settings(value: Any) -> Mapping[str, Any]:
    """``tavern_helper`` as an object (a list of ``[key, value]`` pairs is read as one)."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, list):
        pairs = [item for item in value if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)]
        return dict(pairs)
    return {}


def _walk(items: Any, where: str, folder_on: bool = True) -> Iterator[HelperScript]:
    if not isinstance(items, list):
        return
    for item in items:
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "folder":
            yield from _walk(item.get("scripts"), where, folder_on and item.get("enabled") is not False)
            continue
        body = item.get("value") if isinstance(item.get("value"), Mapping) else item
        assert isinstance(body, Mapping)
        content = body.get("content") if isinstance(body.get("content"), str) else ""
        name = body.get("name") or item.get("name") or body.get("id") or "未命名"
        enabled = folder_on and item.get("enabled", body.get("enabled", True)) is not False
        urls = tuple(dict.fromkeys(_URL.findall(str(content))))
        yield HelperScript(str(name), enabled, str(content), where, urls)


def helper_scripts(extensions: Any) -> list[HelperScript]:
    """Every TavernHelper script in *extensions* (a card's ``data.extensions`` or a preset's ``extensions``)."""
    if not isinstance(extensions, Mapping):
        return []
    found = list(_walk(_settings(extensions.get("tavern_helper")).get("scripts"), "tavern_helper"))
    found += _walk(extensions.get("TavernHelper_scripts"), "TavernHelper_scripts")
    return found


def script_report(script: HelperScript, owner: str, *, mvu_on: bool = True) -> str:
    """One line: the script's name, what will run here, what will not, what it loads from where."""
    state = "" if script.enabled else "（已停用）"
    if script.kind == "mvu" and script.enabled and mvu_on:
        runs = "运行：MVU 变量更新（梨园内置实现：[initvar] 初始化、更新命令、状态栏占位）与变量宏、<% %> 模板"
        skips = "不运行：脚本自己的 JavaScript 和它加载的库"
    elif script.kind == "mvu" and script.enabled:
        runs = "运行：无（这张卡的脚本未获允许，MVU 变量更新不做）"
        skips = "不运行：脚本自己的 JavaScript"
    elif script.kind == "zod":
        runs = "运行：无"
        skips = "不运行：zod 变量结构（取值范围钳制、枚举检查不生效），脚本自己的 JavaScript"
    else:
        runs = "运行：无"
        skips = "不运行：脚本自己的 JavaScript（界面、按钮、事件监听都不会有）"
    remote = f"；远程加载：{'、'.join(script.urls)}" if script.urls else ""
    return f"{owner}的 TavernHelper 脚本「{script.name}」{state}：{runs}；{skips}{remote}"
