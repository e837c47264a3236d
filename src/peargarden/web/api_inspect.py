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

from peargarden.errors import BadInput, NotFound
from peargarden.providers.base import ChatRequest
from peargarden.text.tokens import counter_for_model, message_tokens

from .api_chat import hub_of
from .chat_hub import OpenChat

router = APIRouter(prefix="/api")

DRY_RUN_TEXT = "（试运行：下一句话）"


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _slot(index: int, total: int, message: dict[str, Any], last_user: int) -> str:
    role = str(message.get("role", ""))
    if index == 0 and role == "system":
        return "system"
    if role == "tool" or message.get("tool_calls"):
        return "tool_round"
    if index == last_user:
        return "beat_input"
    if role == "system":
        return "injection"
    return "history"


def _purpose(messages: list[dict[str, Any]]) -> str:
    """``beat`` for the model's own calls; story memory's side calls by their system prompt."""
    from peargarden.modes.stage.memory import RESIDENT_SYSTEM
    from peargarden.stage.memory.compaction import SUMMARY_SYSTEM
    from peargarden.stage.memory.scribe import SCRIBE_SYSTEM

    system = _content(messages[0]) if messages and messages[0].get("role") == "system" else ""
    known = {SCRIBE_SYSTEM: "scene_notes", SUMMARY_SYSTEM: "compaction", RESIDENT_SYSTEM: "resident_memory"}
    return known.get(system, "beat")


def ledger(request: ChatRequest, model: str) -> dict[str, Any]:
    count = counter_for_model(model)
    messages = [m if isinstance(m, dict) else {} for m in request.messages]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    rows = []
    for index, message in enumerate(messages):
        text = _content(message)
        calls = message.get("tool_calls") or []
        if calls and not text:
            text = "\n".join(f"⚙ {c.get('function', c).get('name')} {c.get('function', c).get('arguments')}"
                             for c in calls if isinstance(c, dict))  # fmt: skip
        role = str(message.get("role", ""))
        rows.append(
            {
                "slot": _slot(index, len(messages), message, last_user),
                "role": role,
                "tokens": message_tokens(count, role, text),
                "content": text,
            }
        )
    return {
        "purpose": _purpose(messages),
        "messages": rows,
        "tools": [spec.name for spec in request.tools],
        "total_tokens": sum(r["tokens"] for r in rows),
        "model": request.model or model,
        "thinking": request.thinking,
        "sampler": dict(request.sampler),
    }


def _in_context(chat: OpenChat, rows: list[dict[str, Any]]) -> list[str]:
    sent = "\n".join(r["content"] for r in rows)
    found = []
    for message in chat.session.messages():
        text = message.content.strip()
        if text and message.entry_id and text in sent:
            found.append(message.entry_id)
    return found


def dry_run(chat: OpenChat, mode: str, text: str = DRY_RUN_TEXT) -> tuple[ChatRequest, list[str]]:
    """The first request the next beat would send in *mode* (nothing is written: the service's preview)."""
    preview = chat.session.preview(mode, text)
    return preview.request, preview.warnings


def inspect_source(chat: OpenChat, source: str) -> dict[str, Any]:
    model = chat.session.resolved.model
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
            raise BadInput(f"不认识的来源 {source!r}（last、beat:N、dry:stage、dry:tavern）")
        # The beat log (kept on disk beside the chat): still there after the server restarts.
        beats = [b for b in chat.beats if b.rounds]
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
def diff(request: Request, card: str, chat_id: str, a: str = "dry:tavern", b: str = "dry:stage") -> dict[str, Any]:
    """A unified diff between two sources (two beats, or tavern against stage)."""
    chat = hub_of(request).chat(card, chat_id)
    left, right = inspect_source(chat, a), inspect_source(chat, b)
    text = "\n".join(difflib.unified_diff(_as_text(left), _as_text(right), fromfile=a, tofile=b, lineterm=""))
    return {"a": a, "b": b, "diff": text}
