"""``/api/slash`` and ``/api/quick-replies``: STscript from the chat bar, and Quick Reply sets.

``POST /api/chats/{card}/{chat}/slash`` with ``{"script", "input"}`` answers ``text/event-stream``: an
``ask`` item whenever a command asks the person (``/popup``, ``/input``, ``/buttons``: ``{"type":
"ask", "id", "kind": "popup"|"input"|"buttons", "text", "labels", "default"}``, answered by ``POST
/api/slash/asks/{id}`` with ``{"answer"}``; ``null`` closes the dialog), then one ``done`` item with
the outcome (``result``, ``thrown``, ``toasts``, ``input``, ``warnings``, ``changed``).
"""

from __future__ import annotations

import json
import queue
import threading
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel

from peargarden.app.library import (
    chat_quick_reply_links,
    delete_quick_reply_set,
    export_quick_reply_set,
    import_quick_reply_set,
    quick_reply_sets,
    save_quick_reply_set,
    set_global_quick_replies,
)
from peargarden.app.play import Asker, chat_quick_replies, command_catalog, run_chat_script, set_chat_quick_reply_links
from peargarden.errors import NotFound, PearError

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")

# How long a script waits for a dialog to be answered before it takes it as closed.
ASK_TIMEOUT = 600.0


class _Ask:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: Any = None


class PageAsker(Asker):
    """Dialogs of a script run from the page: each question goes to the page as an ``ask`` item and
    the script waits for the answer (``POST /api/slash/asks/{id}``)."""

    def __init__(self, items: queue.Queue[dict[str, Any]], pending: dict[str, _Ask]) -> None:
        self.items = items
        self.pending = pending

    def _ask(self, kind: str, text: str, **extra: Any) -> Any:
        ask_id = uuid.uuid4().hex[:12]
        waiting = self.pending[ask_id] = _Ask()
        self.items.put({"type": "ask", "id": ask_id, "kind": kind, "text": text, **extra})
        try:
            if not waiting.done.wait(ASK_TIMEOUT):
                return None
            return waiting.answer
        finally:
            self.pending.pop(ask_id, None)

    def popup(self, text: str) -> bool:
        return bool(self._ask("popup", text))

    def text(self, prompt: str, default: str) -> str | None:
        answer = self._ask("input", prompt, default=default)
        return None if answer is None else str(answer)

    def choose(self, prompt: str, labels: list[str]) -> str | None:
        answer = self._ask("buttons", prompt, labels=labels)
        return answer if isinstance(answer, str) and answer in labels else None


def _pending(request: Request) -> dict[str, _Ask]:
    state = request.app.state
    found: dict[str, _Ask] | None = getattr(state, "slash_asks", None)
    if found is None:
        found = state.slash_asks = {}
    return found


@router.get("/slash/commands")
def commands() -> list[dict[str, Any]]:
    """Every command with its arguments and help (the chat bar's autocomplete)."""
    return command_catalog()


class ScriptBody(BaseModel):
    script: str
    input: str = ""


@router.post("/chats/{card}/{chat_id}/slash")
def run_slash(request: Request, card: str, chat_id: str, body: ScriptBody) -> StreamingResponse:
    """Run a script on the chat; dialogs are asked on the stream, the outcome ends it."""
    chat = hub_of(request).chat(card, chat_id)
    pending = _pending(request)
    items: queue.Queue[dict[str, Any]] = queue.Queue()

    def work() -> None:
        try:
            asker = PageAsker(items, pending)
            outcome = run_chat_script(chat.card_session, body.script, asker=asker, input_text=body.input)
            chat.wrote()
            items.put(
                {
                    "type": "done",
                    "result": outcome.result,
                    "thrown": outcome.thrown,
                    "toasts": outcome.toasts,
                    "input": outcome.input_text,
                    "warnings": outcome.warnings,
                    "changed": outcome.changed,
                }
            )
        except PearError as error:
            items.put({"type": "done", "result": None, "thrown": None, "changed": True, "input": None,
                       "warnings": [], "toasts": [{"type": "error", "title": "", "message": str(error)}]})  # fmt: skip

    threading.Thread(target=work, name="slash", daemon=True).start()

    def stream() -> Iterator[str]:
        while True:
            item = items.get()
            yield f"data: {json.dumps(item, ensure_ascii=False)}\n\n"
            if item["type"] == "done":
                return

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


class AnswerBody(BaseModel):
    answer: Any = None


@router.post("/slash/asks/{ask_id}")
def answer(request: Request, ask_id: str, body: AnswerBody) -> dict[str, Any]:
    waiting = _pending(request).get(ask_id)
    if waiting is None:
        raise NotFound(f"没有在等待回答的对话框 {ask_id}")
    waiting.answer = body.answer
    waiting.done.set()
    return {"ok": True}


# -- Quick Replies ---------------------------------------------------------------------------------


@router.get("/quick-replies")
def list_sets(request: Request, card: str | None = None, chat: str | None = None) -> dict[str, Any]:
    """Every set, the ones on for every chat, and (with ``?card=&chat=``) the chat's own."""
    links = chat_quick_replies(hub_of(request).chat(card, chat).card_session) if card and chat else []
    return quick_reply_sets(home_of(request), links)


class SetBody(BaseModel):
    data: dict[str, Any]
    rename_from: str | None = None


@router.put("/quick-replies")
def save_set(request: Request, body: SetBody) -> dict[str, Any]:
    return save_quick_reply_set(home_of(request), body.data, rename_from=body.rename_from)


@router.post("/quick-replies/import")
async def import_set(request: Request, file: UploadFile = File(...)) -> dict[str, Any]:
    raw = await file.read()
    return import_quick_reply_set(home_of(request), raw, file.filename or "quick-replies.json")


@router.get("/quick-replies/{name}/export")
def export_set(request: Request, name: str) -> Response:
    data = export_quick_reply_set(home_of(request), name)
    disposition = f"attachment; filename=\"quick-replies.json\"; filename*=UTF-8''{quote(name)}.json"
    return Response(data, media_type="application/json", headers={"Content-Disposition": disposition})


@router.delete("/quick-replies/{name}")
def delete_set(request: Request, name: str) -> dict[str, Any]:
    delete_quick_reply_set(home_of(request), name)
    return {"ok": True}


class LinksBody(BaseModel):
    setList: list[dict[str, Any]]  # SillyTavern's field name


@router.put("/quick-replies/global")
def set_global(request: Request, body: LinksBody) -> dict[str, Any]:
    return {"global": set_global_quick_replies(home_of(request), body.setList)}


@router.put("/chats/{card}/{chat_id}/quick-replies")
def set_chat(request: Request, card: str, chat_id: str, body: LinksBody) -> dict[str, Any]:
    chat = hub_of(request).chat(card, chat_id)
    value = chat_quick_reply_links(body.setList)
    set_chat_quick_reply_links(chat.card_session, value)
    chat.wrote()
    return {"chat": value["setList"]}
