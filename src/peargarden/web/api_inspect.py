"""``/api/inspect``: the prompt inspector — what was (or would be) sent to the model.

Sources: ``last`` (the exact requests of the chat's last beat, as the provider received them),
``beat:N`` (N beats back, 1 = the one before the last), ``dry:stage`` / ``dry:tavern`` / ``dry:work``
(the request the next beat would send in that mode, built without calling a model or writing the
chat).  Each message gets a slot, its role and a token count; ``in_context`` lists the chat's
message ids whose text the request carries (the page draws the marker from it).
"""

from __future__ import annotations

import difflib
from typing import Any

from fastapi import APIRouter, Request

from peargarden.app.play import MODE_NAMES, STAGE, TAVERN, ChatRequest, ledger
from peargarden.errors import BadInput, NotFound

from .chat_hub import OpenChat
from .chat_view import sent_ids
from .deps import hub_of

router = APIRouter(prefix="/api")

DRY_RUN_TEXT = "（试运行：下一句话）"


def _in_context(chat: OpenChat, rows: list[dict[str, Any]]) -> list[str]:
    sent = "\n".join(r["content"] for r in rows)
    return sent_ids(sent, ((m.entry_id, m.content) for m in chat.session.messages()))


def dry_run(chat: OpenChat, mode: str, text: str = DRY_RUN_TEXT) -> tuple[ChatRequest, list[str]]:
    """The first request the next beat would send in *mode* (nothing is written: the service's preview)."""
    preview = chat.session.preview(mode, text)
    return preview.request, preview.warnings


def inspect_source(chat: OpenChat, source: str) -> dict[str, Any]:
    model = chat.session.model
    if source.startswith("dry:"):
        request, warnings = dry_run(chat, source.removeprefix("dry:"))
        result: dict[str, Any] = {"source": source, "rounds": [ledger(request, model)], "warnings": warnings}
    else:
        back = 0
        if source.startswith("beat:"):
            try:
                back = int(source.removeprefix("beat:"))
            except ValueError:
                raise BadInput(f"不认识的来源 {source!r}") from None
        elif source != "last":
            dry = "、".join(f"dry:{mode}" for mode in MODE_NAMES)
            raise BadInput(f"不认识的来源 {source!r}（last、beat:N、{dry}）")
        # The beat log (kept on disk beside the chat): still there after the server restarts.
        beats = [b for b in chat.session.beat_records() if b.rounds]
        if back >= len(beats):
            raise NotFound("还没有这一拍的请求记录（先对话一拍，或用试运行）")
        found = beats[-1 - back]
        result = {"source": source, "rounds": found.rounds, "warnings": found.warnings}
    # The marker follows what the model itself was sent, not story memory's side calls.
    rows = [row for rnd in result["rounds"] if rnd["purpose"] == "beat" for row in rnd["messages"]]
    result["in_context"] = _in_context(chat, rows)
    return result


@router.get("/inspect/{card}/{chat_id}")
def inspect(request: Request, card: str, chat_id: str, source: str = "last") -> dict[str, Any]:
    """The ledger of a request: per message slot, role, tokens and text."""
    return inspect_source(hub_of(request).chat(card, chat_id), source)


def _as_text(result: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for number, rnd in enumerate(result["rounds"], 1):
        lines.append(f"=== 第 {number} 次调用 ===")
        for row in rnd["messages"]:
            lines.append(f"--- [{row['slot']}] {row['role']} ({row['tokens']} tokens)")
            lines.extend(row["content"].split("\n"))
    return lines


@router.get("/inspect/{card}/{chat_id}/diff")
def diff(
    request: Request, card: str, chat_id: str, a: str = f"dry:{TAVERN}", b: str = f"dry:{STAGE}"
) -> dict[str, Any]:
    """A unified diff between two sources (two beats, or tavern against stage)."""
    chat = hub_of(request).chat(card, chat_id)
    left, right = inspect_source(chat, a), inspect_source(chat, b)
    text = "\n".join(difflib.unified_diff(_as_text(left), _as_text(right), fromfile=a, tofile=b, lineterm=""))
    return {"a": a, "b": b, "diff": text}
