"""Compile a SillyTavern Chat Completion preset in SillyTavern's order into declarable pieces.

Spec liyuan §4.2–4.3: the order of ``character_id`` 100001 (else the first order list, else the
``prompts`` array with its own ``enabled``); ``enabled`` absent means on; disabled blocks are not
evaluated (their ``setvar`` never runs); markers produce nothing here; ``chatHistory`` marks where
"after history" starts; in-chat blocks (``injection_position == 1``) become depth pieces; the
trailing run of assistant pieces after history is SillyTavern's prefill and is dropped.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import msgspec

from ._macros import MacroEnv, evaluate

MARKER_IDS = frozenset(
    {
        "worldInfoBefore",
        "charDescription",
        "charPersonality",
        "scenario",
        "worldInfoAfter",
        "personaDescription",
        "dialogueExamples",
        "chatHistory",
    }
)
GLOBAL_ORDER_ID = 100001

Where = Literal["before", "after", "depth"]
Status = Literal["taken", "disabled", "missing", "marker", "empty", "prefill"]
STATUS_TEXT: dict[str, str] = {
    "taken": "采用",
    "disabled": "关闭（未求值）",
    "missing": "缺失定义",
    "marker": "占位标记，跳过",
    "empty": "零字",
    "prefill": "预填充（历史后结尾的 assistant 段），丢弃",
}


class Piece(msgspec.Struct, frozen=True):
    id: str
    name: str
    role: str
    where: Where
    text: str
    depth: int = 0
    order: int = 100

    @property
    def key(self) -> str:
        """Cache key: the compiled text, so editing a block asks again and toggling does not."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()


class BlockReport(msgspec.Struct, frozen=True):
    id: str
    name: str
    status: Status


class Compiled(msgspec.Struct):
    pieces: list[Piece] = msgspec.field(default_factory=list)
    blocks: list[BlockReport] = msgspec.field(default_factory=list)
    dropped_prefill: list[Piece] = msgspec.field(default_factory=list)
    unsupported_macros: list[str] = msgspec.field(default_factory=list)
    uses_last_user_message: list[str] = msgspec.field(default_factory=list)


def _order_list(preset: dict[str, Any]) -> list[tuple[str, bool]]:
    orders = preset.get("prompt_order")
    if isinstance(orders, list):
        chosen = next(
            (
                o
                for o in orders
                if isinstance(o, dict) and o.get("character_id") == GLOBAL_ORDER_ID and isinstance(o.get("order"), list)
            ),
            None,
        ) or next((o for o in orders if isinstance(o, dict) and isinstance(o.get("order"), list)), None)
        if chosen is not None:
            return [
                (str(item.get("identifier")), item.get("enabled", True) is not False)
                for item in chosen["order"]
                if isinstance(item, dict) and item.get("identifier")
            ]
    prompts = preset.get("prompts")
    if isinstance(prompts, list):
        return [
            (str(p.get("identifier")), p.get("enabled", True) is not False)
            for p in prompts
            if isinstance(p, dict) and p.get("identifier")
        ]
    return []


def compile_preset(preset: dict[str, Any], *, char: str, user: str) -> Compiled:
    prompts = {
        str(p.get("identifier")): p for p in preset.get("prompts") or [] if isinstance(p, dict) and p.get("identifier")
    }
    env = MacroEnv(char=char, user=user)
    out = Compiled()
    before: list[Piece] = []
    after: list[Piece] = []
    depth: list[Piece] = []
    past_history = False
    for identifier, enabled in _order_list(preset):
        prompt = prompts.get(identifier)
        name = str(prompt.get("name") or identifier) if prompt else identifier
        if identifier == "chatHistory" and enabled:
            past_history = True
        if prompt is None and identifier not in MARKER_IDS:
            out.blocks.append(BlockReport(identifier, name, "missing"))
            continue
        if not enabled:
            out.blocks.append(BlockReport(identifier, name, "disabled"))
            continue
        if identifier in MARKER_IDS or (prompt is not None and prompt.get("marker")):
            out.blocks.append(BlockReport(identifier, name, "marker"))
            continue
        assert prompt is not None
        used_before = env.last_user_message_used
        env.last_user_message_used = False
        text = evaluate(str(prompt.get("content") or ""), env)
        if env.last_user_message_used:
            out.uses_last_user_message.append(identifier)
        env.last_user_message_used = used_before or env.last_user_message_used
        if not text.strip():
            out.blocks.append(BlockReport(identifier, name, "empty"))
            continue
        role = str(prompt.get("role") or "system")
        if prompt.get("injection_position") == 1:
            piece = Piece(identifier, name, role, "depth", text.strip(), int(prompt.get("injection_depth") or 0),
                          int(prompt.get("injection_order") or 100))  # fmt: skip
            depth.append(piece)
        else:
            piece = Piece(identifier, name, role, "after" if past_history else "before", text.strip())
            (after if past_history else before).append(piece)
        out.blocks.append(BlockReport(identifier, name, "taken"))
    while after and after[-1].role == "assistant":
        out.dropped_prefill.insert(0, after.pop())
    dropped = {p.id for p in out.dropped_prefill}
    out.blocks = [BlockReport(b.id, b.name, "prefill") if b.id in dropped else b for b in out.blocks]
    depth.sort(key=lambda p: (p.depth, p.order))
    out.pieces = before + after + depth
    out.unsupported_macros = list(dict.fromkeys(env.unsupported))
    return out
