"""``/api/groups`` and the group pages: groups as data (make from cards, settings, mute), and group
chats played a round at a time.

A group chat is opened once and kept, like a card's (``OpenChat``, here keyed by the group); its
beat is a round whose stream carries a ``speaker`` item before each member's reply, and is
registered with the chat hub, so ``POST /api/beats/{beat}/stop`` (between speakers too) and the
approval answers work as on a card's chat.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from peargarden.app import ChatOptions, GroupSession, PearApp
from peargarden.app.cards import group_picture
from peargarden.app.library import (
    GROUP_MODE_NAMES,
    create_group,
    delete_group,
    edit_group,
    group_list,
    group_summary,
    open_group,
    set_muted,
)
from peargarden.app.play import new_group_chat, open_group_chat, tree_leaf, tree_rows
from peargarden.errors import BadInput, ConflictError

from .api_cards import picture_response
from .api_chat import chat_state, tree_json
from .api_status import variables_json
from .chat_hub import ChatHub, OpenChat
from .deps import home_of, hub_of, templates_of

router = APIRouter()
_GUARD = threading.Lock()


class GroupChats:
    """The open group chats of this server, by (group folder, chat id)."""

    def __init__(self) -> None:
        self.chats: dict[tuple[str, str], OpenChat] = {}
        self.lock = threading.Lock()


def _open_chats(request: Request) -> GroupChats:
    state = request.app.state
    with _GUARD:
        found = getattr(state, "group_chats", None)
        if found is None:
            found = state.group_chats = GroupChats()
    assert isinstance(found, GroupChats)
    return found


def _service(request: Request) -> PearApp:
    """The server's one service (the chat hub's), as a card's chats have it."""
    return hub_of(request).app


def _keep(request: Request, session: GroupSession) -> OpenChat:
    chats = _open_chats(request)
    key = (session.folder.folder, session.chat_id)
    with chats.lock:
        found = chats.chats.get(key)
        if found is None:
            found = chats.chats[key] = OpenChat(session)
            found.seen = session.file_stamp()
    return found


def _chat(request: Request, group: str, chat_id: str) -> OpenChat:
    folder = open_group(home_of(request), group)
    chats = _open_chats(request)
    with chats.lock:
        found = chats.chats.get((folder.folder, chat_id))
    if found is not None:
        found.refresh()
        return found
    return _keep(request, open_group_chat(_service(request), folder.folder, chat_id))


def group_chat(request: Request, group: str, chat_id: str) -> OpenChat:
    """The group chat *chat_id* of *group*, open in this server (for the routers beside the group page)."""
    return _chat(request, group, chat_id)


def _session(chat: OpenChat) -> GroupSession:
    session = chat.session
    assert isinstance(session, GroupSession)
    return session


def group_state(chat: OpenChat) -> dict[str, Any]:
    """The chat page's state (``chat_state``) with the group: its members and settings, and each
    reply drawn with its speaker's card (``card``, ``avatar``)."""
    session = _session(chat)
    state = chat_state(chat)
    for message in state["messages"]:
        card = session.card_of(message["id"]) if message["role"] == "assistant" else None
        message["card"] = card
        if card is not None:
            message["avatar"] = f"/api/cards/{quote(card, safe='')}/avatar?size=thumb"
    state["group"] = session.group_info()
    state["card"] = None
    # The group page draws its whole tree with the state: messages only, and where the chat is.
    tree = session.chat.tree
    state["tree"], state["tree_leaf"] = tree_json(tree_rows(tree)), tree_leaf(tree, session.leaf)
    return state


# -- groups as data ----------------------------------------------------------------------------------


class NewGroup(BaseModel):
    name: str
    members: list[str]
    strategy: str | None = None
    generation: str | None = None
    mode: str | None = None
    speaker_choice: str | None = None


@router.get("/api/groups")
def list_groups(request: Request) -> list[dict[str, Any]]:
    return group_list(home_of(request))


@router.post("/api/groups")
def create(request: Request, body: NewGroup) -> dict[str, Any]:
    """A group of cards (``pear group create``)."""
    folder = create_group(home_of(request), body.name, body.members, strategy=body.strategy,
                                      generation=body.generation, mode=body.mode,
                                      speaker_choice=body.speaker_choice)  # fmt: skip
    return group_summary(folder)


class GroupSettings(BaseModel):
    name: str | None = None
    strategy: str | None = None
    generation: str | None = None
    self_responses: bool | None = None
    join_prefix: str | None = None
    join_suffix: str | None = None
    mode: str | None = None
    speaker_choice: str | None = None
    add: list[str] = []
    remove: list[str] = []


@router.post("/api/groups/{group}/settings")
def settings(request: Request, group: str, body: GroupSettings) -> dict[str, Any]:
    """Change the group (``pear group edit``); open chats follow from their next round."""
    folder = edit_group(home_of(request), group, add=body.add, remove=body.remove, title=body.name,
                                    strategy=body.strategy, generation=body.generation,
                                    self_responses=body.self_responses, join_prefix=body.join_prefix,
                                    join_suffix=body.join_suffix, mode=body.mode,
                                    speaker_choice=body.speaker_choice)  # fmt: skip
    return group_summary(folder)


class MuteBody(BaseModel):
    member: str
    muted: bool = True


@router.post("/api/groups/{group}/mute")
def mute(request: Request, group: str, body: MuteBody) -> dict[str, Any]:
    """Mute a member or unmute it (the member strip)."""
    set_muted(home_of(request), group, body.member, body.muted)
    return group_summary(open_group(home_of(request), group))


@router.post("/api/groups/{group}/delete")
def delete(request: Request, group: str) -> dict[str, Any]:
    chats = _open_chats(request)
    folder = open_group(home_of(request), group)
    with chats.lock:
        if any(key[0] == folder.folder and chat.session.busy for key, chat in chats.chats.items()):
            raise ConflictError("这个群聊正在生成回复（a beat is running）")
        for key in [key for key in chats.chats if key[0] == folder.folder]:
            del chats.chats[key]
    return {"deleted": folder.folder, **delete_group(home_of(request), folder.folder)}


# -- group chats -----------------------------------------------------------------------------------


@router.get("/api/groups/{group}/avatar")
def avatar(request: Request, group: str) -> Response:
    """The group's picture, made of its members' (the first four): as SillyTavern's group avatars."""
    return picture_response(request, group_picture(home_of(request), group))


@router.get("/api/groups/{group}/chats")
def chats(request: Request, group: str) -> list[dict[str, Any]]:
    return [{"chat_id": chat_id} for chat_id in open_group(home_of(request), group).chat_ids()]


class NewChat(BaseModel):
    mode: str | None = None


@router.post("/api/groups/{group}/chats")
def new_chat(request: Request, group: str, body: NewChat | None = None) -> dict[str, Any]:
    options = ChatOptions(mode=(body.mode if body is not None else None) or None)
    return group_state(_keep(request, new_group_chat(_service(request), group, options)))


@router.get("/api/groups/{group}/chats/{chat_id}")
def get_chat(request: Request, group: str, chat_id: str) -> dict[str, Any]:
    return group_state(_chat(request, group, chat_id))


class RoundBody(BaseModel):
    action: Literal["send", "regenerate", "swipe", "continue", "impersonate"] = "send"
    text: str = ""
    step: int = 1
    speaker: str | None = None  # a member who answers now, muted or not (force-speak)


@router.get("/api/groups/{group}/chats/{chat_id}/variables")
def chat_variables(
    request: Request, group: str, chat_id: str, message: list[int] | None = Query(None)
) -> dict[str, Any]:
    """The group chat's variables, for its status bars (as ``GET /api/chats/{card}/{chat}/variables``)."""
    return variables_json(_session(_chat(request, group, chat_id)).variables(), message)


@router.post("/api/groups/{group}/chats/{chat_id}/beat")
def beat(request: Request, group: str, chat_id: str, body: RoundBody) -> StreamingResponse:
    """Play one round and stream its items: ``beat``, then per speaker a ``speaker`` item and its
    events, ``done`` last (as ``POST /api/chats/{card}/{chat}/beat``)."""
    hub: ChatHub = hub_of(request)
    chat = _chat(request, group, chat_id)
    session = _session(chat)
    played = session.play(body.action, body.text, step=-1 if body.step < 0 else 1, speaker=body.speaker or None)
    active = hub.adopt(chat, played)

    def stream() -> Iterator[str]:
        for item in hub.items(active):
            yield f"data: {json.dumps(item, ensure_ascii=False)}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


class IndexBody(BaseModel):
    index: int = 0
    text: str = ""
    entry_id: str = ""
    mode: str = ""
    indices: list[int] | None = Field(None, max_length=100_000)  # delete: several at once
    last: int | None = None  # hide: index … last
    hidden: bool = True  # hide: false shows them again


def _idle(chat: OpenChat) -> GroupSession:
    if chat.session.busy:
        raise ConflictError("这个群聊正在生成回复（a beat is running）")
    return _session(chat)


@router.post("/api/groups/{group}/chats/{chat_id}/{action}")
def change(request: Request, group: str, chat_id: str, action: str, body: IndexBody) -> dict[str, Any]:
    """``edit`` (index, text), ``delete`` (index, or indices), ``branch`` (index), ``hide`` (index, last,
    hidden), ``undo`` (index), ``goto`` (entry_id), ``mode`` (mode): as a card's chat has them."""
    chat = _chat(request, group, chat_id)
    session = _idle(chat)
    if action == "edit":
        if not body.text.strip():
            raise BadInput("新的内容是空的")
        session.edit(body.index, body.text)
    elif action == "delete":
        session.delete(body.indices if body.indices else body.index)
    elif action == "hide":
        session.hide(body.index, body.last, hidden=body.hidden)
    elif action == "undo":
        session.undo(body.index)
    elif action == "branch":
        session.branch(body.index)
    elif action == "goto":
        session.goto(body.entry_id)
    elif action == "mode":
        session.set_mode(body.mode)
    else:
        raise BadInput(f"未知的操作 {action!r}")
    return group_state(chat)


@router.get("/api/groups/{group}/chats/{chat_id}/export")
def export(request: Request, group: str, chat_id: str) -> Response:
    """The chat as a SillyTavern group chat (``group chats/<chat id>.jsonl``)."""
    data = _session(_chat(request, group, chat_id)).export_sillytavern()
    name = quote(f"{chat_id}.jsonl")
    return Response(data, media_type="application/jsonl",
                    headers={"Content-Disposition": f"attachment; filename*=UTF-8''{name}"})  # fmt: skip


# -- pages -----------------------------------------------------------------------------------------


def _page(request: Request, template: str, **context: object) -> HTMLResponse:
    return templates_of(request).TemplateResponse(request, template, context)


@router.get("/groups", response_class=HTMLResponse)
def groups_page(request: Request) -> HTMLResponse:
    """The groups, and a form that makes one from cards."""
    return _page(request, "groups.html", modes=GROUP_MODE_NAMES)


@router.get("/group/{group}", response_class=HTMLResponse)
def group_latest(request: Request, group: str) -> Response:
    """The group's newest chat; without one, the group page whose button starts one (a GET makes
    nothing)."""
    folder = open_group(home_of(request), group)
    ids = folder.chat_ids()
    if ids:
        return RedirectResponse(f"/group/{quote(folder.folder, safe='')}/{quote(ids[-1], safe='')}", status_code=303)
    return _page(request, "group_chat.html", group=folder.folder, chat_id="")


@router.get("/group/{group}/{chat_id}", response_class=HTMLResponse)
def group_page(request: Request, group: str, chat_id: str) -> HTMLResponse:
    _chat(request, group, chat_id)  # an unknown chat is a 404 before the page is drawn
    return _page(request, "group_chat.html", group=group, chat_id=chat_id)
