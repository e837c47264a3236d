"""The members' TavernHelper scripts in a group chat's page (``static/script_frames.js``, as on a card's
chat page: ``api_scripts.py``), over ``app/play/group_page_scripts.py``:

* ``GET /api/groups/{group}/chats/{chat}/scripts`` — ``{"allowed", "count", "scripts": [{"card", "id",
  "name", "code", "buttons"}], "world", "opening", "members", "names"}``: every member's enabled
  scripts whose card's scripts the user allowed, each with its card; ``world`` the group chat's data
  with ``members`` (each card's own part, laid over the rest for that card's frames).
  ``GET …/scripts/world`` gives ``{"world"}`` again; ``?action=send`` also the round's ``events``
  (per speaker, ``speaker`` in their view).
* ``POST /api/groups/{group}/chats/{chat}/scripts/call`` with ``{"calls": [{"card", "script", "name",
  "args"}]}`` — each call run as its card's, on this group chat; a card that is not a member, or a
  script its card does not run, is refused.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request

from peargarden.app import GroupSession
from peargarden.app.play import (
    group_action_events,
    group_chat_page_scripts,
    group_page_world,
    run_group_calls,
    tavern_helper_names,
)

from .api_groups import group_chat
from .api_scripts import CallsBody

router = APIRouter(prefix="/api/groups/{group}/chats/{chat_id}/scripts")


def _session(request: Request, group: str, chat_id: str) -> GroupSession:
    session = group_chat(request, group, chat_id).session
    assert isinstance(session, GroupSession)
    return session


@router.get("")
def scripts(request: Request, group: str, chat_id: str) -> dict[str, Any]:
    """The members' scripts for this group chat's page, and the data they read."""
    return {**group_chat_page_scripts(_session(request, group, chat_id)), "names": tavern_helper_names()}


@router.get("/world")
def world(
    request: Request, group: str, chat_id: str, action: str | None = Query(None, max_length=40)
) -> dict[str, Any]:
    """The data the frames read, again (after a round or an edit); with *action*, its events."""
    session = _session(request, group, chat_id)
    if action:
        return group_action_events(session, action)
    return {"world": group_page_world(session)}


@router.post("/call")
def calls(request: Request, group: str, chat_id: str, body: CallsBody) -> dict[str, Any]:
    """The frames' calls, each run as its own card's, on the group chat in order."""
    chat = group_chat(request, group, chat_id)
    session = chat.session
    assert isinstance(session, GroupSession)
    answer = run_group_calls(session, body.calls)
    chat.wrote()
    return answer
