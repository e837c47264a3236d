"""One model request as the prompt inspector shows it: a row per message with its slot, role and
token count, what the request was for (the beat, or one of story memory's side calls), its tools,
model, thinking level and samplers.  Used by the web's ``/api/inspect`` and its chat hub's beat log."""

from __future__ import annotations

from typing import Any

import msgspec

from peargarden.providers.base import ChatRequest
from peargarden.text.tokens import counter_for_model, message_tokens

__all__ = ["ChatRequest", "ledger", "with_counts"]


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


def ledger(request: ChatRequest, model: str, *, counted: bool = True, purpose: str = "beat") -> dict[str, Any]:
    """The request's ledger; ``counted=False`` leaves the token counts ``None`` for the reader to
    fill (:func:`with_counts`): ``pear chat`` keeps a beat without loading a tokenizer it did not
    need for the beat itself (a third of a second of a one-shot's CPU).  *purpose*: what the request
    was for, as the service recorded it (``beat``, or a side call's: ``scene_notes``…)."""
    count = counter_for_model(model) if counted else None
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
                "tokens": message_tokens(count, role, text) if count is not None else None,
                "content": text,
            }
        )
    return {
        "purpose": purpose,
        "messages": rows,
        "tools": [spec.name for spec in request.tools],
        "total_tokens": sum(r["tokens"] for r in rows) if count is not None else None,
        "model": request.model or model,
        "thinking": request.thinking,
        "sampler": dict(request.sampler),
        # The budget the builder fitted this request into (tavern: the preset's), for the context bar.
        **({"budget": msgspec.structs.asdict(request.budget)} if request.budget is not None else {}),
        # The lorebook entries that fired for it (the page lists them under the reply).
        **({"lore": [dict(hit) for hit in request.lore]} if request.lore else {}),
    }


def with_counts(recorded: dict[str, Any]) -> dict[str, Any]:
    """A ledger read back, with the token counts a ``counted=False`` ledger left out filled in (with
    the counter of the model it names); a ledger that has them is returned as it is."""
    rows = recorded.get("messages")
    if not isinstance(rows, list) or all(not isinstance(r, dict) or r.get("tokens") is not None for r in rows):
        return recorded
    count = counter_for_model(str(recorded.get("model") or ""))
    filled = [
        {**row, "tokens": message_tokens(count, str(row.get("role", "")), str(row.get("content", "")))}
        if isinstance(row, dict) and row.get("tokens") is None
        else row
        for row in rows
    ]
    total = sum(int(row.get("tokens") or 0) for row in filled if isinstance(row, dict))
    return {**recorded, "messages": filled, "total_tokens": total}
