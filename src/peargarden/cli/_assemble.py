"""``pear tavern assemble``'s work: the exact SillyTavern request for one of the user's cards.

Typer-free: :mod:`.tavern_cmd` declares the command for typer and calls :func:`assemble`, and
:mod:`._light` calls it directly when the command line is a plain one (no typer in the process).
"""

from __future__ import annotations

import sys
import unicodedata
from typing import Any

from peargarden.app import ChatOptions, PearApp
from peargarden.app.play import TAVERN
from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._state import state


def _width(text: str) -> int:

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def format_ledger(assembly: Any) -> str:
    """The ledger table: one row per request message (slot, name, role, tokens, first characters)."""
    rows = [(str(i), r.slot, r.name or "", r.role, str(r.tokens), r.head) for i, r in enumerate(assembly.ledger, 1)]
    header = ("#", "slot", "name", "role", "tokens", "开头")
    widths = [max(_width(row[c]) for row in [header, *rows]) for c in range(5)]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].rjust(widths[0]), _pad(row[1], widths[1]), _pad(row[2], widths[2]), _pad(row[3], widths[3])]
        lines.append("  ".join([*cells, row[4].rjust(widths[4]), row[5]]).rstrip())
    lines.append(
        f"合计 {assembly.used} / 预算 {assembly.budget + 3}（含 3 个回复起始 token），"
        f"历史 {assembly.history_tokens}，进入上下文的对话消息 {assembly.in_context_count} 条"
    )
    for warning in assembly.warnings:
        lines.append(f"⚠ {warning}")
    return "\n".join(lines)


def assemble(
    card: str,
    preset: str | None,
    chat: str | None,
    message: str | None,
    as_json: bool,
    ledger: bool,
    st_version: str | None,
    seed: int | None,
) -> None:
    """Print the request body (or the ledger) of the next tavern beat (nothing is sent or saved)."""
    if as_json and ledger:
        raise BadInput("--json 与 --ledger 只能选一个")
    if chat:
        if preset is not None or st_version is not None:
            raise BadInput(
                "--chat 显示这段对话下一拍真正发送的请求（用卡的预设和版本），不能再加 --preset 或 --st-version"
            )
        _print_assembly(*_chat_preview(card, chat, message or ""), ledger=ledger)
        return
    _print_assembly(*_new_chat_preview(card, message or "", preset, st_version, seed), ledger=ledger)


def _chat_preview(card: str, chat: str, message: str) -> tuple[dict[str, Any], Any, list[str]]:
    """The next tavern beat of *chat* exactly as ``pear chat`` would send it (the service's preview)."""
    preview = PearApp(state.home).open_chat(card, chat, ChatOptions(mode=TAVERN)).preview(TAVERN, message)
    return preview.inspect["body"], preview.inspect["assembly"], preview.warnings


def _new_chat_preview(
    card: str, message: str, preset: str | None, st_version: str | None, seed: int | None
) -> tuple[dict[str, Any], Any, list[str]]:
    """The first tavern beat of a new chat with *card*, exactly as ``pear chat`` would send it (the
    service's preview of a chat that lives only in memory)."""
    options = ChatOptions(mode=TAVERN, preset=preset, st_version=st_version)
    preview = PearApp(state.home).draft_chat(card, options, seed=seed).preview(TAVERN, message)
    return preview.inspect["body"], preview.inspect["assembly"], preview.warnings


def _print_assembly(body: dict[str, Any], assembly: Any, warnings: list[str], *, ledger: bool) -> None:
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if ledger:
        print(format_ledger(assembly))
    else:
        print(dumps_json(body, indent=2))
