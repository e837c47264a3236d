"""Prompt Manager: the preset's prompt definitions, the 100001 order list, and the collection.

``load_prompt_manager`` repairs a preset the way ST does on load (missing lists, missing built-in
prompts re-added, order references to unknown prompts dropped) and reports what it repaired.
``build_collection`` is ``getPromptCollection``: enabled entries in list order, ``main`` kept with
blank content when disabled (relative extension prompts need an anchor).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import msgspec
from msgspec.structs import replace

from .defaults import DEFAULT_ORDER, DEFAULT_PROMPTS, GLOBAL_ORDER_ID


class Prompt(msgspec.Struct):
    """ST's ``Prompt`` object (only the fields it copies)."""

    identifier: str
    role: Any = None
    content: Any = None
    name: Any = None
    system_prompt: Any = None
    position: str | None = None  # 'start' / 'end' for relative extension prompts
    injection_position: Any = None
    injection_depth: Any = None
    forbid_overrides: Any = None
    extension: bool = False
    injection_order: Any = None  # 1.18: priority among in-chat prompts at one depth (default 100)
    injection_trigger: Any = None  # 1.18: generation types the prompt is limited to

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Prompt:
        return cls(
            identifier=str(raw.get("identifier")),
            role=raw.get("role"),
            content=raw.get("content"),
            name=raw.get("name"),
            system_prompt=raw.get("system_prompt"),
            position=raw.get("position") if isinstance(raw.get("position"), str) else None,
            injection_position=raw.get("injection_position"),
            injection_depth=raw.get("injection_depth"),
            forbid_overrides=raw.get("forbid_overrides"),
            extension=bool(raw.get("extension", False)),
            injection_order=raw.get("injection_order"),
            injection_trigger=raw.get("injection_trigger"),
        )

    def triggers_on(self, gen_type: str) -> bool:
        """1.18 ``shouldTrigger``: no list or an empty one means every generation type."""
        trigger = self.injection_trigger
        if not isinstance(trigger, list) or not trigger:
            return True
        return gen_type in trigger

    @property
    def text(self) -> str:
        return self.content if isinstance(self.content, str) else ""

    @property
    def is_in_chat(self) -> bool:
        # Strict equality with the number 1, as in ST (a string "1" is not in-chat).
        return _js_number_eq(self.injection_position, 1)


def _js_number_eq(value: Any, number: int) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == number


class PromptManagerData(msgspec.Struct):
    prompts: list[dict[str, Any]]
    order: list[dict[str, Any]]
    warnings: list[str] = msgspec.field(default_factory=list)

    def find(self, identifier: str) -> dict[str, Any] | None:
        for p in self.prompts:
            if isinstance(p, dict) and p.get("identifier") == identifier:
                return p
        return None

    def entry(self, identifier: str) -> dict[str, Any] | None:
        for e in self.order:
            if e.get("identifier") == identifier:
                return e
        return None

    def is_disabled(self, identifier: str) -> bool:
        entry = self.entry(identifier)
        return bool(entry is not None and not entry.get("enabled"))


def load_prompt_manager(oai: Mapping[str, Any]) -> PromptManagerData:
    """Sanitize ``prompts`` / ``prompt_order`` like ``PromptManager.sanitizeServiceSettings``."""
    warnings: list[str] = []
    raw_prompts = oai.get("prompts")
    prompts: list[dict[str, Any]] = (
        [copy.deepcopy(p) for p in raw_prompts if isinstance(p, dict)] if isinstance(raw_prompts, list) else []
    )
    raw_orders = oai.get("prompt_order")
    orders = raw_orders if isinstance(raw_orders, list) else []
    order: list[dict[str, Any]] | None = None
    for item in orders:
        if isinstance(item, dict) and str(item.get("character_id")) == str(GLOBAL_ORDER_ID):
            found = item.get("order")
            order = (
                [copy.deepcopy(e) for e in found if isinstance(e, dict) and isinstance(e.get("identifier"), str)]
                if isinstance(found, list)
                else []
            )
            break
    if order is None:
        # ST adds the default list only when no 100001 list exists.  A 100001 list that is empty (or
        # has no ``order``) stays in front of the added one, and ``find`` keeps returning it.
        warnings.append("预设没有 character_id 100001 的提示词顺序，按 SillyTavern 默认顺序组装")
        order = copy.deepcopy(DEFAULT_ORDER)
    elif not order:
        warnings.append("预设的 character_id 100001 提示词顺序是空的：SillyTavern 只发送卡片和世界书的固定部分")
    if not prompts:
        prompts = copy.deepcopy(DEFAULT_PROMPTS)
    else:
        known = {p.get("identifier") for p in prompts if isinstance(p.get("identifier"), str)}
        for default in DEFAULT_PROMPTS:
            if default["identifier"] not in known:
                prompts.append(copy.deepcopy(default))
                warnings.append(f"预设缺少内置提示词 {default['identifier']}，已补上默认内容")
    for i, p in enumerate(prompts):
        if not isinstance(p.get("identifier"), str):
            # ST gives prompts without an identifier a uuid; a non-string one can never be referenced.
            p["identifier"] = f"\0prompt-{i}"
    identifiers = {p.get("identifier") for p in prompts}
    kept = []
    for entry in order:
        if entry.get("identifier") in identifiers:
            kept.append(entry)
        else:
            warnings.append(f"提示词顺序引用了不存在的条目 {entry.get('identifier')!r}，已忽略")
    if not any(e.get("identifier") == "chatHistory" for e in kept):
        warnings.append("提示词顺序里没有 chatHistory：SillyTavern 不会发送任何聊天记录")
    return PromptManagerData(prompts=prompts, order=kept, warnings=warnings)


class PromptCollection:
    """An ordered list of prepared prompts; the index of a prompt is its slot number."""

    def __init__(self) -> None:
        self.items: list[Prompt] = []
        self.overridden: list[str] = []

    def __iter__(self) -> Iterator[Prompt]:
        return iter(self.items)

    def add(self, prompt: Prompt) -> None:
        self.items.append(prompt)

    def get(self, identifier: str) -> Prompt | None:
        for p in self.items:
            if p.identifier == identifier:
                return p
        return None

    def index(self, identifier: str) -> int:
        for i, p in enumerate(self.items):
            if p.identifier == identifier:
                return i
        return -1

    def has(self, identifier: str) -> bool:
        return self.index(identifier) != -1

    def set(self, prompt: Prompt, position: int) -> None:
        if position < 0:
            # JS `collection[-1] = x` sets a property, not an element: the prompt is not listed.
            return
        self.items[position] = prompt

    def override(self, prompt: Prompt, position: int) -> None:
        self.set(prompt, position)
        self.overridden.append(prompt.identifier)


Prepare = Callable[[Prompt, "str | None"], Prompt]


def make_prepare(substitute: Callable[[str, str | None], str]) -> Prepare:
    """``PromptManager.preparePrompt``: a copy with macros substituted in its content."""

    def prepare(prompt: Prompt, original: str | None = None) -> Prompt:
        return replace(prompt, content=substitute(prompt.text, original))

    return prepare


def build_collection(data: PromptManagerData, prepare: Prepare, gen_type: str | None = None) -> PromptCollection:
    """``getPromptCollection``; with ``gen_type`` (1.18) a prompt's ``injection_trigger`` is honoured."""
    collection = PromptCollection()
    for entry in data.order:
        identifier = entry.get("identifier")
        raw = data.find(str(identifier))
        if raw is None:
            continue
        allowed = entry.get("enabled") is True
        if allowed and gen_type is not None:
            allowed = Prompt.from_json(raw).triggers_on(gen_type)
        if allowed:
            collection.add(prepare(Prompt.from_json(raw), None))
        elif not entry.get("enabled") and identifier == "main":
            blank = Prompt.from_json(raw)
            blank.content = ""
            collection.add(prepare(blank, None))
    return collection
