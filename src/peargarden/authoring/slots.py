"""The editable slots of a card: every public string field, greeting, lore entry, regex script and
card script, each addressed by its JSON path inside the card's V3 ``data``.

A slot's id is ``<kind>-<sha256(JSON(path))[:16]>`` so entries with the same name or the same text
keep separate identities.  Its file name is readable (the label, sanitised) plus a short piece of the
id, so two entries called 怀瑾 still get two files.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Literal

import msgspec

Path_ = tuple[str | int, ...]
SlotKind = Literal["field", "greeting", "lore", "regex-pattern", "regex-template", "script", "html"]

# Public card fields that are text, with the Chinese label the files are named after.
FIELD_LABELS: tuple[tuple[str, str, SlotKind], ...] = (
    ("name", "卡名", "field"),
    ("description", "描述", "field"),
    ("personality", "性格", "field"),
    ("scenario", "场景", "field"),
    ("mes_example", "对话示例", "field"),
    ("system_prompt", "卡内系统提示", "field"),
    ("post_history_instructions", "卡内末端提示", "field"),
    ("creator_notes", "作者注", "field"),
    ("first_mes", "默认开场", "greeting"),
    ("creator", "作者", "field"),
    ("character_version", "版本", "field"),
)

_EXT: dict[SlotKind, str] = {
    "field": ".txt",
    "greeting": ".txt",
    "lore": ".txt",
    "regex-pattern": ".txt",
    "regex-template": ".html",
    "script": ".js",
    "html": ".html",
}
_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]')


class Slot(msgspec.Struct, frozen=True):
    id: str
    kind: SlotKind
    label: str
    path: Path_

    @property
    def file_name(self) -> str:
        label = _UNSAFE.sub("_", self.label).strip().strip(".") or self.kind
        return f"{label[:40]}-{self.id[-6:]}{_EXT[self.kind]}"


def slot_id(kind: str, path: Path_) -> str:
    digest = hashlib.sha256(json.dumps(list(path), ensure_ascii=False).encode("utf-8")).hexdigest()
    return f"{kind}-{digest[:16]}"


def _slot(kind: SlotKind, label: str, path: Path_) -> Slot:
    return Slot(slot_id(kind, path), kind, label, path)


def get_at(data: Any, path: Path_) -> Any:
    node = data
    for key in path:
        if isinstance(key, int):
            if not isinstance(node, list) or key >= len(node):
                return None
            node = node[key]
        else:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
    return node


def set_at(data: Any, path: Path_, value: Any) -> None:
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _scripts(extensions: dict[str, Any]) -> list[tuple[Path_, dict[str, Any]]]:
    found: list[tuple[Path_, dict[str, Any]]] = []
    for key in ("TavernHelper", "tavern_helper", "TavernHelper_scripts"):
        holder = extensions.get(key)
        scripts = holder.get("scripts") if isinstance(holder, dict) else holder if isinstance(holder, list) else None
        if not isinstance(scripts, list):
            continue
        base: Path_ = ("extensions", key, "scripts") if isinstance(holder, dict) else ("extensions", key)
        for index, script in enumerate(scripts):
            if isinstance(script, dict) and isinstance(script.get("content"), str):
                found.append(((*base, index), script))
    return found


def card_slots(data: dict[str, Any]) -> list[Slot]:
    """Every editable string slot of a card's ``data`` (V3 shape), in a stable order."""
    slots: list[Slot] = []
    for field, label, kind in FIELD_LABELS:
        if isinstance(data.get(field), str):
            slots.append(_slot(kind, label, (field,)))
    for key, label in (("alternate_greetings", "备选开场"), ("group_only_greetings", "群聊开场")):
        values = data.get(key)
        if isinstance(values, list):
            for index, value in enumerate(values):
                if isinstance(value, str):
                    slots.append(_slot("greeting", f"{label}{index + 1}", (key, index)))
    book = data.get("character_book")
    entries = book.get("entries") if isinstance(book, dict) else None
    if isinstance(entries, list):
        for index, entry in enumerate(entries):
            if isinstance(entry, dict) and isinstance(entry.get("content"), str):
                keys = entry.get("keys")
                label = (
                    entry.get("comment") or entry.get("name") or (keys[0] if isinstance(keys, list) and keys else "")
                )
                slots.append(
                    _slot("lore", f"世界书-{label or f'条目{index}'}", ("character_book", "entries", index, "content"))
                )
    extensions = data.get("extensions")
    if isinstance(extensions, dict):
        regexes = extensions.get("regex_scripts")
        if isinstance(regexes, list):
            for index, script in enumerate(regexes):
                if not isinstance(script, dict):
                    continue
                name = str(script.get("scriptName") or f"正则{index + 1}")
                base: Path_ = ("extensions", "regex_scripts", index)
                if isinstance(script.get("findRegex"), str):
                    slots.append(_slot("regex-pattern", f"正则-{name}-匹配", (*base, "findRegex")))
                if isinstance(script.get("replaceString"), str):
                    slots.append(_slot("regex-template", f"正则-{name}-替换", (*base, "replaceString")))
        for path, script in _scripts(extensions):
            name = str(script.get("name") or "脚本")
            slots.append(_slot("script", f"脚本-{name}", (*path, "content")))
    return slots
