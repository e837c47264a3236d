"""``/api/chats``: open and play chats; a beat's events stream back as server-sent events.

``POST /api/chats/{card}/{chat}/beat`` with ``{"action": "send"|"regenerate"|"swipe"|"continue"|
"impersonate", "text", "step"}`` answers ``text/event-stream``: one ``data: {json}`` line per event
(the agent events of :mod:`peargarden.agent.events`, first a ``beat`` item with the beat id, and an
``approval_prompt`` item whenever the sandbox asks; the beat then waits for
``POST /api/beats/{beat}/approval``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from peargarden.errors import BadInput, ConflictError, NotFound

from .chat_hub import OpenChat
from .chat_view import message_json
from .deps import hub_of

router = APIRouter(prefix="/api")


_TAGS = re.compile(r"<script[\s\S]*?</script>|<style[\s\S]*?</style>|<[^>]*>", re.IGNORECASE)


def _preview(text: str, width: int = 36) -> str:
    flat = " ".join(_TAGS.sub(" ", text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def chat_state(chat: OpenChat) -> dict[str, Any]:
    """Everything the chat page draws (the service's page model, ``ChatSession.view()``, as JSON):
    messages (numbered as edit/delete/branch count), swipes, tree, context bar."""
    view = chat.session.view()
    messages = [message_json(view.card, row) for row in view.rows]
    rows = []
    for row in view.tree:
        entry = row.entry
        if entry.type == "message":
            msg = entry.message
            label = _preview(str(msg.get("content") or ""))
            if not label and msg.get("tool_calls"):
                label = "⚙ " + "、".join(str(c.get("name")) for c in msg["tool_calls"])
            role = str(msg.get("role", ""))
        else:
            label, role = str(entry.body.get("customType", entry.type)), "custom"
        rows.append(
            {
                "id": entry.id,
                "parent": entry.parent_id,
                "depth": row.depth,
                "role": role,
                "label": label,
                "on_path": row.on_path,
                "sibling": [row.sibling_index + 1, row.sibling_count],
            }
        )
    return {
        "card": view.card,
        "chat_id": view.chat_id,
        "mode": view.mode,
        "modes": view.modes,
        "messages": messages,
        "swipe": asdict(view.swipe),
        "tree": rows,
        "leaf": view.leaf,
        "warnings": [*view.warnings, *chat.warnings],
        "model": view.model,
        "persona": view.persona,
        "char": view.char_name,
        "context": asdict(view.context),
    }


class NewChat(BaseModel):
    mode: str | None = None
    persona: str | None = None


@router.post("/chats/{card}")
def new_chat(request: Request, card: str, body: NewChat | None = None) -> dict[str, Any]:
    body = body or NewChat()
    return chat_state(hub_of(request).new_chat(card, body.mode, body.persona or None))


@router.get("/chats/{card}/{chat_id}")
def get_chat(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    return chat_state(hub_of(request).chat(card, chat_id))


class BeatBody(BaseModel):
    action: Literal["send", "regenerate", "swipe", "continue", "impersonate"] = "send"
    text: str = ""
    step: int = 1


@router.post("/chats/{card}/{chat_id}/beat")
def beat(request: Request, card: str, chat_id: str, body: BeatBody) -> StreamingResponse:
    """Play one beat and stream its events (``text/event-stream``)."""
    hub = hub_of(request)
    chat = hub.chat(card, chat_id)
    active = hub.start_beat(chat, body.action, body.text, -1 if body.step < 0 else 1)

    def stream() -> Iterator[str]:
        for item in hub.items(active):
            yield f"data: {json.dumps(item, ensure_ascii=False)}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


class ApprovalBody(BaseModel):
    call_id: str
    choice: Literal["once", "session", "card", "deny"]
    text: str = ""


@router.post("/beats/{beat_id}/approval")
def approve(request: Request, beat_id: str, body: ApprovalBody) -> dict[str, Any]:
    """Answer the sandbox's question; the waiting beat goes on."""
    active = hub_of(request).beat(beat_id)
    prompt = active.prompts.pop(body.call_id, None)
    if prompt is None:
        raise NotFound(f"这一拍没有在等待的工具调用 {body.call_id}")
    prompt.reply(body.choice, body.text)
    return {"ok": True}


@router.post("/beats/{beat_id}/stop")
def stop(request: Request, beat_id: str) -> dict[str, Any]:
    hub_of(request).beat(beat_id).beat.stop()
    return {"ok": True}


class IndexBody(BaseModel):
    index: int
    text: str = ""


def _idle(chat: OpenChat) -> OpenChat:
    if chat.session.busy:
        raise ConflictError("这个对话正在生成回复（a beat is running）")
    return chat


@router.post("/chats/{card}/{chat_id}/edit")
def edit(request: Request, card: str, chat_id: str, body: IndexBody) -> dict[str, Any]:
    chat = _idle(hub_of(request).chat(card, chat_id))
    if not body.text.strip():
        raise BadInput("新的内容是空的")
    chat.session.edit(body.index, body.text)
    return chat_state(chat)


@router.post("/chats/{card}/{chat_id}/delete")
def delete(request: Request, card: str, chat_id: str, body: IndexBody) -> dict[str, Any]:
    chat = _idle(hub_of(request).chat(card, chat_id))
    chat.session.delete(body.index)
    return chat_state(chat)


@router.post("/chats/{card}/{chat_id}/branch")
def branch(request: Request, card: str, chat_id: str, body: IndexBody) -> dict[str, Any]:
    chat = _idle(hub_of(request).chat(card, chat_id))
    chat.session.branch(body.index)
    return chat_state(chat)


class HideBody(BaseModel):
    index: int
    last: int | None = None  # the range's last message (default: only *index*)
    hidden: bool = True  # False: shown to the model again


@router.post("/chats/{card}/{chat_id}/hide")
def hide(request: Request, card: str, chat_id: str, body: HideBody) -> dict[str, Any]:
    """Hide messages from the model or show them again (SillyTavern's ``/hide`` and ``/unhide``)."""
    chat = _idle(hub_of(request).chat(card, chat_id))
    chat.session.hide(body.index, body.last, hidden=body.hidden)
    return chat_state(chat)


class GotoBody(BaseModel):
    entry_id: str


@router.post("/chats/{card}/{chat_id}/goto")
def goto(request: Request, card: str, chat_id: str, body: GotoBody) -> dict[str, Any]:
    chat = _idle(hub_of(request).chat(card, chat_id))
    chat.session.goto(body.entry_id)
    return chat_state(chat)


class ModeBody(BaseModel):
    mode: str


@router.post("/chats/{card}/{chat_id}/mode")
def set_mode(request: Request, card: str, chat_id: str, body: ModeBody) -> dict[str, Any]:
    chat = _idle(hub_of(request).chat(card, chat_id))
    chat.session.set_mode(body.mode)
    return chat_state(chat)


@router.get("/chats/{card}/{chat_id}/export")
def export(request: Request, card: str, chat_id: str) -> StreamingResponse:
    data = hub_of(request).chat(card, chat_id).session.export_sillytavern()
    name = f"{card}-{chat_id}.jsonl"
    return StreamingResponse(
        iter([data]),
        media_type="application/jsonl",
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{_quote(name)}"},
    )


def _quote(name: str) -> str:

    return quote(name)
