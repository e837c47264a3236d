"""What a card's status-bar frames read, through the page (``static/status_frame.js``), never directly:

* ``GET /api/chats/{card}/{chat}/variables`` — the chat's variables as TavernHelper keeps them:
  ``{"last": <the last message's number>, "chat": {...}, "mvu": bool, "messages": [{"message",
  "role", "swipe_id", "variables", "swipes"}]}``, SillyTavern's message numbers (0 = the greeting),
  one record per swipe and ``variables`` the shown swipe's.  ``?message=N`` (repeatable; negative
  counts from the end, ``-1`` the last) keeps only those messages.  Read-only.
* ``GET /api/groups/{group}/chats/{chat}/variables`` — the same for a group chat (its route lives
  with the group's in ``api_groups.py``).
* ``GET /api/frame-libs/{name}`` — a library frames get locally (``frame_libraries.py``).
* ``GET /api/frame-world`` — TavernHelper's function names as frames know them: ``{"sync", "async",
  "refused": {name: reason}}`` (``frame_world.js`` makes the refused ones throw their reason).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from peargarden.app.play import ChatVariables, tavern_helper_names

from .deps import hub_of
from .frame_libraries import library_text

router = APIRouter(prefix="/api")


@router.get("/chats/{card}/{chat_id}/variables")
def chat_variables(
    request: Request, card: str, chat_id: str, message: list[int] | None = Query(None)
) -> dict[str, Any]:
    """The chat's variables, per message and per swipe (``?message=N`` for some of them)."""
    return variables_json(hub_of(request).chat(card, chat_id).session.variables(), message)


def variables_json(shown: ChatVariables, message: list[int] | None) -> dict[str, Any]:
    """The answer of a chat's ``…/variables`` (a card's chat or a group's): *message* picks messages
    by SillyTavern's numbers (negative: from the end), ``None`` all of them."""
    count = len(shown.messages)
    picked = {number + count if number < 0 else number for number in message or []}
    wanted = range(count) if message is None else sorted(picked & set(range(count)))
    return {
        "last": count - 1,
        "chat": shown.chat,
        "mvu": shown.mvu,
        "messages": [shown.messages[number].to_json() for number in wanted],
    }


@router.get("/frame-libs/{name}")
def frame_library(name: str) -> Response:
    """jQuery or lodash, for the page to put into a status-bar frame."""
    return Response(library_text(name), media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "max-age=86400"})  # fmt: skip


@router.get("/frame-world")
def frame_world() -> dict[str, Any]:
    """TavernHelper's names: answered, refused (with why)."""
    return tavern_helper_names()
