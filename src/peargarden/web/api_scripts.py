"""A card's TavernHelper scripts in the chat page (``static/script_frames.js`` runs each in a frame):

* ``GET /api/chats/{card}/{chat}/scripts`` — ``{"allowed", "count", "scripts": [{"id", "name", "code",
  "buttons"}], "world", "names"}``: the card's enabled scripts when the user allowed them (``allowed``:
  the answer, ``null`` when never asked — then none run; ``count``: how many the card has), the copy
  of the chat's data their reads are answered from, and TavernHelper's function names (``sync``,
  ``async``, ``refused``), the events a new chat's scripts hear once started (``opening``).
  ``GET …/scripts/world`` gives ``{"world"}`` again; ``?action=send`` (a beat: ``send``,
  ``regenerate``, ``swipe``, ``continue``; or a change: ``edit``, ``delete``…) also ``"events":
  [[type, args, view]]``, SillyTavern's events of what the page just did (``app/play/page_events.py``);
  ``&live=1``: a beat's from its reply on (the frames heard the rest before its request).
* ``POST /api/chats/{card}/{chat}/scripts/live`` with ``{"token", "chat", "settings"}`` (or ``"late":
  event``) — what the listeners left of a beat's ``script_events`` item (the prompt's messages, the
  request's body); the waiting beat sends its request with their changes (``app/play/live_events.py``).
* ``POST /api/chats/{card}/{chat}/scripts/call`` with ``{"calls": [{"script", "name", "args"}]}`` —
  the calls the page collected from its frames, run in order on the chat (``app/play/page_scripts.py``):
  ``{"answers": [{"json"} | {"error"}], "events": [[event, args]], "world"}``.  A call may only name
  a script this card runs, or be a status bar's (``{"bar": message, "name", "args"}``) when the card's
  scripts are allowed; what it changes is an edit of this chat.  Besides TavernHelper's names,
  ``EjsTemplate.evalTemplate``, ``EjsTemplate.prepareContext``, ``EjsTemplate.getSyntaxErrorInfo`` and
  ``Mvu.parseMessage`` (``app/play/page_frame_apis.py``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from peargarden.app import ChatSession
from peargarden.app.play import chat_page_scripts, page_action_events, page_world, run_calls, tavern_helper_names
from peargarden.errors import BadInput

from .chat_hub import OpenChat
from .deps import hub_of

router = APIRouter(prefix="/api")


class CallsBody(BaseModel):
    calls: list[dict[str, Any]]


def _card_chat(chat: OpenChat) -> ChatSession:
    """The card's chat whose scripts run in the page (a group's members' scripts do not, yet)."""
    if not isinstance(chat.session, ChatSession):
        raise BadInput("群聊里还不能运行角色卡的脚本（card scripts run in a card's chat only）")
    return chat.session


@router.get("/chats/{card}/{chat_id}/scripts")
def chat_scripts(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    """The card's scripts for this chat's page, and the data they read."""
    return {**chat_page_scripts(_card_chat(hub_of(request).chat(card, chat_id))), "names": tavern_helper_names()}


@router.get("/chats/{card}/{chat_id}/scripts/world")
def chat_script_world(
    request: Request, card: str, chat_id: str, action: str | None = Query(None, max_length=40), live: bool = False
) -> dict[str, Any]:
    """The data the frames read, again (after a beat or an edit); with *action*, its events (*live*:
    those after the request: the frames heard the rest during the beat)."""
    session = _card_chat(hub_of(request).chat(card, chat_id))
    if action:
        return page_action_events(session, action, live=live)
    return {"world": page_world(session)}


class LiveBody(BaseModel):
    token: str = Field(max_length=64)
    chat: list[Any] | None = None
    settings: dict[str, Any] | None = None
    late: str | None = Field(None, max_length=200)


@router.post("/chats/{card}/{chat_id}/scripts/live")
def script_events_heard(request: Request, card: str, chat_id: str, body: LiveBody) -> dict[str, Any]:
    """What the frames' listeners left of a beat's events before its request (the beat waits for it)."""
    hub = hub_of(request)
    hub.live.answer(_card_chat(hub.chat(card, chat_id)), body.token, body.model_dump())
    return {"ok": True}


@router.post("/chats/{card}/{chat_id}/scripts/call")
def script_calls(request: Request, card: str, chat_id: str, body: CallsBody) -> dict[str, Any]:
    """The frames' calls, run on the chat in order."""
    chat = hub_of(request).chat(card, chat_id)
    answer = run_calls(_card_chat(chat), body.calls)
    chat.wrote()
    return answer
