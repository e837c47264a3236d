"""``/api/chats``: open and play chats; a beat's events stream back as server-sent events.

``POST /api/chats/{card}/{chat}/beat`` with ``{"action": "send"|"regenerate"|"swipe"|"continue"|
"impersonate", "text", "step"}`` answers ``text/event-stream``: one ``data: {json}`` line per event
(the agent events of :mod:`peargarden.agent.events`, first a ``beat`` item with the beat id, and an
``approval_prompt`` item whenever the sandbox asks; the beat then waits for
``POST /api/beats/{beat}/approval``).  With ``"scripts": true`` (the page runs the card's scripts) a
``script_events`` item comes before the request is sent; the beat waits (bounded) for
``POST /api/chats/{card}/{chat}/scripts/live`` (``app/play/live_events.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

import msgspec
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from peargarden.app.library import warning_fix
from peargarden.app.play import MessageRow, TreeRow, tree_leaf
from peargarden.errors import BadInput, ConflictError, NotFound

from .chat_hub import OpenChat
from .chat_view import message_json, sent_ids
from .deps import hub_of

if TYPE_CHECKING:
    from peargarden.app import AnyChat

router = APIRouter(prefix="/api")


_TAGS = re.compile(r"<script[\s\S]*?</script>|<style[\s\S]*?</style>|<[^>]*>", re.IGNORECASE)


def _preview(text: str, width: int = 36) -> str:
    flat = " ".join(_TAGS.sub(" ", text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# SillyTavern draws the last 100 messages of a chat and offers "show more" for the rest.
WINDOW = 100
MAX_WINDOW = 1000


@dataclass(frozen=True)
class Window:
    """Which messages of the active branch a page asks for: the *last* ones ending before message
    number *before* (default: the end), or from *since* on (what a beat may have changed); the
    in-context marker is looked for from message *mark_from* on (default: the window's start; none
    for a *since* window without *mark_from*)."""

    last: int = WINDOW
    before: int | None = None
    since: int | None = None
    mark_from: int | None = None


def window_of(
    last: int = Query(WINDOW, ge=0, le=MAX_WINDOW),
    before: int | None = Query(None, ge=0),
    since: int | None = Query(None, ge=0),
    mark_from: int | None = Query(None, ge=0),
) -> Window:
    return Window(last, before, since, mark_from)


def chat_state(chat: OpenChat, window: Window | None = None) -> dict[str, Any]:
    """What the chat page draws (the service's page model, ``ChatSession.view()``, as JSON): a window
    of messages (numbered as edit/delete/branch count; ``first`` and ``total`` say where it sits),
    the swipe arrows, the context bar.  The branch tree is ``GET …/tree``: drawn on demand."""
    window = window or Window()
    chat.wrote()  # a change just made here (or a GET that read the file just now)
    view = chat.session.view(window.last, window.before, since=window.since)
    messages = [message_json(view.card, row) for row in view.rows]
    warnings = [*view.warnings, *chat.warnings]
    return {
        "card": view.card,
        "chat_id": view.chat_id,
        "mode": view.mode,
        "modes": view.modes,
        "messages": messages,
        "first": view.first,
        "total": view.total,
        "swipe": msgspec.structs.asdict(view.swipe),
        "leaf": view.leaf,
        "warnings": warnings,
        # The warnings a page can fix with one click, by text: ``system-file`` (app/library/system_file.py).
        "warning_fixes": {text: fix for text in warnings if (fix := warning_fix(text))},
        "model": view.model,
        "persona": view.persona,
        "char": view.char_name,
        "context": msgspec.structs.asdict(view.context),
        # A beat's patch asks for the marker only once the beat is over (its request is in the log).
        "in_context": None
        if window.since is not None and window.mark_from is None
        else _in_context(chat, view.rows, view.first, window.mark_from),
    }


def _in_context(chat: OpenChat, rows: list[MessageRow], first: int, mark_from: int | None) -> list[str]:
    """Which of the page's messages (the window's, or from *mark_from* on) the last beat's request
    carried: the page's "in context from here" marker."""
    if mark_from is not None and mark_from < first:
        rows = chat.session.view(MAX_WINDOW, since=mark_from).rows
    if not rows:
        return []
    records = [b for b in chat.session.beat_records() if any(r.get("purpose") == "beat" for r in b.rounds)]
    if not records:
        return []
    sent = "\n".join(str(m.get("content") or "") for r in records[-1].rounds if r.get("purpose") == "beat"
                     for m in r.get("messages") or [])  # fmt: skip
    return sent_ids(sent, ((row.id, row.content) for row in rows))


def tree_json(rows: list[TreeRow]) -> list[dict[str, Any]]:
    """The branch tree's rows as the page draws them: a label per entry, its place among siblings."""
    out = []
    for row in rows:
        entry = row.entry
        if entry.type == "message":
            msg = entry.message
            label = _preview(str(msg.get("content") or ""))
            if not label and msg.get("tool_calls"):
                label = "⚙ " + "、".join(str(c.get("name")) for c in msg["tool_calls"])
            role = str(msg.get("role", ""))
        else:
            label, role = str(entry.body.get("customType", entry.type)), "custom"
        out.append(
            {
                "id": entry.id,
                "parent": row.parent,
                "depth": row.depth,
                "role": role,
                "label": label,
                "on_path": row.on_path,
                "sibling": [row.sibling_index + 1, row.sibling_count],
                "more": row.more,
            }
        )
    return out


class NewChat(BaseModel):
    mode: str | None = None
    persona: str | None = None


@router.post("/chats/{card}")
def new_chat(request: Request, card: str, body: NewChat | None = None) -> dict[str, Any]:
    body = body or NewChat()
    return chat_state(hub_of(request).new_chat(card, body.mode, body.persona or None))


@router.get("/chats/{card}/{chat_id}")
def get_chat(request: Request, card: str, chat_id: str, window: Window = Depends(window_of)) -> dict[str, Any]:
    """A window of the chat (``?last=100``, ``&before=N``, or ``?since=N``)."""
    return chat_state(hub_of(request).chat(card, chat_id), window)


@router.get("/chats/{card}/{chat_id}/tree")
def get_tree(request: Request, card: str, chat_id: str, around: int = Query(0, ge=0)) -> dict[str, Any]:
    """The branch tree near message *around* (a window's first message) down to the branch's end."""
    session = hub_of(request).chat(card, chat_id).session
    return {"tree": tree_json(session.branch_rows(around)), "leaf": tree_leaf(session.chat.tree, session.leaf)}


class BeatBody(BaseModel):
    action: Literal["send", "regenerate", "swipe", "continue", "impersonate"] = "send"
    text: str = ""
    step: int = 1
    scripts: bool = False  # the page runs the card's scripts: a "script_events" item comes before the request


@router.post("/chats/{card}/{chat_id}/beat")
def beat(request: Request, card: str, chat_id: str, body: BeatBody) -> StreamingResponse:
    """Play one beat and stream its events (``text/event-stream``)."""
    hub = hub_of(request)
    chat = hub.chat(card, chat_id)
    active = hub.start_beat(chat, body.action, body.text, -1 if body.step < 0 else 1, scripts=body.scripts)

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
    """*chat*, unless a beat is writing its reply (after it, the change waits for the scene notes)."""
    if chat.session.busy and not chat.session.tidying:
        raise ConflictError("这个对话正在生成回复（a beat is running）")
    return chat


def _changed(
    request: Request, card: str, chat_id: str, window: Window, change: Callable[[AnyChat], object]
) -> dict[str, Any]:
    """Make *change* to the chat (refused while a reply is being written) and answer with the page's window."""
    chat = _idle(hub_of(request).chat(card, chat_id))
    change(chat.session)
    return chat_state(chat, window)


@router.post("/chats/{card}/{chat_id}/edit")
def edit(
    request: Request, card: str, chat_id: str, body: IndexBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    if not body.text.strip():
        raise BadInput("新的内容是空的")
    return _changed(request, card, chat_id, window, lambda session: session.edit(body.index, body.text))


class DeleteBody(BaseModel):
    index: int | None = None
    indices: list[int] | None = Field(None, max_length=10_000)  # several at once (SillyTavern's "delete messages")


@router.post("/chats/{card}/{chat_id}/delete")
def delete(
    request: Request, card: str, chat_id: str, body: DeleteBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    chosen = body.indices if body.indices is not None else body.index
    if chosen is None:
        raise BadInput("要删除哪条消息？（index 或 indices）")
    return _changed(request, card, chat_id, window, lambda session: session.delete(chosen))


@router.post("/chats/{card}/{chat_id}/branch")
def branch(
    request: Request, card: str, chat_id: str, body: IndexBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    return _changed(request, card, chat_id, window, lambda session: session.branch(body.index))


@router.post("/chats/{card}/{chat_id}/undo")
def undo(
    request: Request, card: str, chat_id: str, body: IndexBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    """Message *index* back to its text before its latest continue."""
    return _changed(request, card, chat_id, window, lambda session: session.undo(body.index))


class HideBody(BaseModel):
    index: int
    last: int | None = None  # the range's last message (default: only *index*)
    hidden: bool = True  # False: shown to the model again


@router.post("/chats/{card}/{chat_id}/hide")
def hide(
    request: Request, card: str, chat_id: str, body: HideBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    """Hide messages from the model or show them again (SillyTavern's ``/hide`` and ``/unhide``)."""
    return _changed(
        request, card, chat_id, window, lambda session: session.hide(body.index, body.last, hidden=body.hidden)
    )


class GotoBody(BaseModel):
    entry_id: str
    deepest: bool = False  # on to the newest end of the branch below it (a sibling's story)


@router.post("/chats/{card}/{chat_id}/goto")
def goto(
    request: Request, card: str, chat_id: str, body: GotoBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    return _changed(request, card, chat_id, window, lambda session: session.goto(body.entry_id, deepest=body.deepest))


class SiblingBody(BaseModel):
    index: int
    step: Literal[-1, 1]


@router.post("/chats/{card}/{chat_id}/sibling")
def sibling(
    request: Request, card: str, chat_id: str, body: SiblingBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    """Show another version of message *index* (a swipe or an edit anywhere in the chat) and the
    story that follows it."""
    return _changed(request, card, chat_id, window,
                    lambda session: session.goto(session.sibling(body.index, body.step), deepest=True))  # fmt: skip


class ModeBody(BaseModel):
    mode: str


@router.post("/chats/{card}/{chat_id}/mode")
def set_mode(
    request: Request, card: str, chat_id: str, body: ModeBody, window: Window = Depends(window_of)
) -> dict[str, Any]:
    return _changed(request, card, chat_id, window, lambda session: session.set_mode(body.mode))


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
