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
from typing import Any

import msgspec

_URL = re.compile(r"https?://[^\s'\"`)<>]+")
_MVU_BUNDLE = re.compile(r"MagVarUpdate|MagicalAstrogy", re.IGNORECASE)
_ZOD_SCHEMA = re.compile(r"registerMvuSchema|mvu_zod|\bz\.object\s*\(")


class HelperScript(msgspec.Struct, frozen=True):
    """One TavernHelper script: its name, whether it is enabled, its code and where it was found."""

    name: str
    enabled: bool
    content: str
    where: str  # "tavern_helper" or "TavernHelper_scripts"
    urls: tuple[str, ...] = msgspec.field(default=())

    @property
    def kind(self) -> str:
        """``zod`` (defines a zod schema for MVU), ``mvu`` (loads MagVarUpdate) or ``other``."""
        if _ZOD_SCHEMA.search(self.content):
            return "zod"
        if _MVU_BUNDLE.search(self.content):
            return "mvu"
        return "other"

    @property
    def registers_schema(self) -> bool:
        """Whether the script hands MVU a zod schema (``registerMvuSchema``): such a script runs here."""
        return "registerMvuSchema" in self.content

    @property
    def loads_mvu(self) -> bool:
        return bool(_MVU_BUNDLE.search(self.content))


def settings_object(value: Any) -> Mapping[str, Any]:
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
    found = list(_walk(settings_object(extensions.get("tavern_helper")).get("scripts"), "tavern_helper"))
    found += _walk(extensions.get("TavernHelper_scripts"), "TavernHelper_scripts")
    return found


def script_report(script: HelperScript, owner: str, *, mvu_on: bool = True, schema_failure: str | None = None) -> str:
    """One line: the script's name, what will run here, what will not, what it loads from where.

    *schema_failure*: why the script's zod schema did not register when it was tried (``None``: it did,
    or it was not tried)."""
    state = "" if script.enabled else "（已停用）"
    if script.registers_schema and script.enabled and mvu_on:
        mvu = "MVU 变量更新（梨园内置实现）与" if script.loads_mvu else ""
        if schema_failure:
            runs = f"运行：{mvu}无——它的 zod 变量结构在梨园运行失败（{schema_failure}），变量按经典 MVU 规则更新"
        else:
            runs = (
                f"运行：{mvu}它注册的 zod 变量结构（梨园的沙箱 JS 运行：开局和每次变量更新后检查，"
                "取值钳制、类型转换、默认值、枚举拒绝照 MVU 生效；z 与 _ 是梨园自己的实现）"
            )
        skips = "不运行：脚本里其余的界面、按钮和事件监听"
    elif script.kind == "mvu" and script.enabled and mvu_on:
        runs = "运行：MVU 变量更新（梨园内置实现：[initvar] 初始化、更新命令、状态栏占位）与变量宏、<% %> 模板"
        skips = "不运行：脚本自己的 JavaScript 和它加载的库"
    elif script.kind in ("mvu", "zod") and script.enabled:
        runs = "运行：无（这张卡的脚本未获允许，MVU 变量更新不做）"
        skips = "不运行：脚本自己的 JavaScript"
    elif script.kind == "zod" and script.enabled:
        runs = "运行：无"
        skips = "不运行：脚本自己的 JavaScript（它写的 zod 结构没有用 registerMvuSchema 交给 MVU）"
    else:
        runs = "运行：无"
        skips = "不运行：脚本自己的 JavaScript（界面、按钮、事件监听都不会有）"
    remote = f"；远程加载：{'、'.join(script.urls)}" if script.urls else ""
    return f"{owner}的 TavernHelper 脚本「{script.name}」{state}：{runs}；{skips}{remote}"
