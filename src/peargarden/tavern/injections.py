"""The extension-prompt table (``extension_prompts``) and in-chat depth insertion.

Every module that wants text in the prompt registers ``key → (value, position, depth, scan,
role)``.  Relative entries (before/after the main prompt) become runtime prompts; in-chat entries
are read per depth and role by :func:`insert_in_chat`, joined in plain sorted-key order
(``1_memory`` < ``2_floating_prompt`` < ``DEPTH_PROMPT`` < ``PERSONA_DESCRIPTION`` <
``customDepthWI…`` < ``script_inject_…``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import msgspec

from peargarden.text.jsstring import js_trim

from .chat_completion import Message
from .defaults import IN_CHAT, MAX_INJECTION_DEPTH, ROLE_IDS
from .lazy_chat import HeadTail
from .prompts import Prompt

T = TypeVar("T")


class ExtensionPrompt(msgspec.Struct, frozen=True):
    value: str
    position: float
    depth: float
    scan: bool = False
    role: float = 0


def _num(value: object, default: float = math.nan) -> float:
    if value is None:
        return default
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip() or "0")
    except ValueError:
        return math.nan


class ExtensionTable:
    """``key → ExtensionPrompt`` with JS insertion order kept (relative prompts use it)."""

    def __init__(self) -> None:
        self.entries: dict[str, ExtensionPrompt] = {}

    def set(
        self, key: str, value: object, position: object, depth: object, scan: object = False, role: object = 0
    ) -> None:
        self.entries[key] = ExtensionPrompt(
            value="" if value is None else str(value),
            position=_num(position),
            depth=_num(depth),
            scan=bool(scan),
            role=_num(role, 0.0),
        )

    def delete_prefix(self, prefix: str) -> None:
        for key in [k for k in self.entries if k.startswith(prefix)]:
            del self.entries[key]

    def get(self, key: str) -> ExtensionPrompt | None:
        return self.entries.get(key)

    def join(
        self,
        position: int,
        depth: int | None = None,
        role: int | None = None,
        separator: str = "\n",
        wrap: bool = True,
        substitute: Callable[[str], str] = lambda s: s,
    ) -> str:
        """``getExtensionPrompt``: matching values, trimmed, in sorted key order, macro-substituted."""
        parts = []
        for key in sorted(self.entries):
            e = self.entries[key]
            if e.position != position or not e.value:
                continue
            if depth is not None and e.depth != depth:
                continue
            if role is not None and e.role != role:
                continue
            parts.append(js_trim(e.value))
        text = separator.join(parts)
        if wrap and text and not text.startswith(separator):
            text = separator + text
        if wrap and text and not text.endswith(separator):
            text = text + separator
        return substitute(text) if text else ""

    def scan_values(self) -> list[str]:
        """Values of entries with ``scan`` on, in insertion order (ST walks ``Object.keys``)."""
        return [e.value for e in self.entries.values() if e.scan and e.value]


def _strict_depth(prompt: Prompt, depth: int) -> bool:
    d = prompt.injection_depth
    return isinstance(d, int | float) and not isinstance(d, bool) and d == depth


def _order(prompt: Prompt) -> float:
    """``injection_order ?? 100`` (a non-number counts as 100)."""
    value = prompt.injection_order
    if isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value):
        return float(value)
    return 100.0


def insert_newest_first(
    in_chat: Sequence[Prompt],
    history_newest_first: Sequence[T],
    table: ExtensionTable,
    substitute: Callable[[str], str],
    make: Callable[[str, str], T],
    *,
    max_depth: int = MAX_INJECTION_DEPTH,
    by_order: bool = False,
) -> Sequence[T]:
    """``populationInjectionPrompts`` without its final reverse: the history stays newest first.

    Depths are visited upwards; a block of one message per role (assistant, user, system from top
    to bottom) goes in at ``depth + messages inserted so far``.  Items are opaque to this function;
    ``make(role, text)`` builds an injected one.  Only the part of the history up to the deepest
    injection is read; the rest is passed through unread (it may be a lazy sequence).

    ``by_order`` (1.18): prompts at one depth are grouped by ``injection_order``, the lowest order
    on top; extension-table text joins the order-100 group.  ``max_depth``: 1000 in 1.12, 10000 later.
    """
    depths: set[int] = set()
    for p in in_chat:
        d = p.injection_depth
        if isinstance(d, int | float) and not isinstance(d, bool) and float(d).is_integer():
            depths.add(int(d))
    for e in table.entries.values():
        if e.position == IN_CHAT and e.value and not math.isnan(e.depth) and e.depth.is_integer():
            depths.add(int(e.depth))
    used = sorted(d for d in depths if 0 <= d <= max_depth)
    # Every insertion point is at most depth + inserted, so the head up to the deepest depth holds
    # all of them (a depth beyond the history clamps to its end, which is then inside the head).
    cut = min(len(history_newest_first), used[-1] if used else 0)
    head = list(history_newest_first[:cut])
    inserted = 0
    for depth in used:
        prompts_here = [p for p in in_chat if _strict_depth(p, depth) and p.content]
        block: list[T] = []
        orders = sorted({100.0, *(_order(p) for p in prompts_here)}, reverse=True) if by_order else [100.0]
        for order in orders:
            for role in ("system", "user", "assistant"):
                own = "\n".join(p.text for p in prompts_here if p.role == role and (not by_order or _order(p) == order))
                ext = table.join(IN_CHAT, depth, ROLE_IDS[role], "\n", False, substitute) if order == 100.0 else ""
                joint = "\n".join(js_trim(x) for x in (own, ext) if x)
                if joint:
                    block.append(make(role, joint))
        if block:
            at = depth + inserted
            head[at:at] = block
            inserted += len(block)
    return HeadTail(head, history_newest_first, cut)


def insert_in_chat(
    in_chat: Sequence[Prompt],
    history_newest_first: list[Message],
    table: ExtensionTable,
    substitute: Callable[[str], str],
    make: Callable[[str, str], Message],
) -> list[Message]:
    """``populationInjectionPrompts``: returns the history in chronological order."""

    def injected(role: str, text: str) -> Message:
        msg = make(role, text)
        msg.injected = True
        return msg

    out = list(insert_newest_first(in_chat, history_newest_first, table, substitute, injected))
    out.reverse()
    return out
