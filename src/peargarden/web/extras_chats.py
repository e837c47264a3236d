"""The chat a route of the features beside the chat works on: a card's (``/api/chats/{card}/{chat}/…``)
or a group's (``/api/groups/{group}/chats/{chat}/…``).  Each such route is declared on both paths with
the owner's name as ``card``; this tells them apart by the path the request came on."""

from __future__ import annotations

from fastapi import Request

from .api_groups import group_chat
from .chat_hub import OpenChat
from .deps import hub_of

GROUP_PREFIX = "/api/groups/"


def chat_of(request: Request, owner: str, chat_id: str) -> OpenChat:
    """The open chat *chat_id* of the card (or group) *owner*."""
    if request.url.path.startswith(GROUP_PREFIX):
        return group_chat(request, owner, chat_id)
    return hub_of(request).chat(owner, chat_id)


def both(path: str) -> tuple[str, str]:
    """*path* (after the chat) under a card's chat and under a group's chat."""
    return f"/api/chats/{{card}}/{{chat_id}}{path}", f"{GROUP_PREFIX}{{card}}/chats/{{chat_id}}{path}"
