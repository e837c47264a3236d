"""A card's chats as files: the list with titles and counts, rename (a title), delete into the vault.
The work is ``app.chat_files``; deleting answers with what undoes it (``POST /api/vault/restore``
with that snapshot and path)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from peargarden.app.play import MAX_TITLE, card_chat_summaries, chat_dir, chat_title, remove_chat, set_title
from peargarden.errors import ConflictError

from .deps import home_of, hub_of

router = APIRouter(prefix="/api")


@router.get("/chats/{card}")
def list_chats(request: Request, card: str) -> list[dict[str, Any]]:
    """The card's chats, oldest first: id, title, mode and the count of messages on the active branch."""
    folder = hub_of(request).app.card(card)
    # From the kept per-chat summaries: a long chat is read again only when its file changed.
    return [{"chat_id": row["id"], "title": chat_title(folder, row["id"]), "mode": row["branch_mode"],
             "messages": row["visible"]} for row in card_chat_summaries(folder)]  # fmt: skip


class RenameBody(BaseModel):
    title: str = Field(max_length=MAX_TITLE)


@router.post("/chats/{card}/{chat_id}/rename")
def rename(request: Request, card: str, chat_id: str, body: RenameBody) -> dict[str, Any]:
    """Give the chat a title (an empty one clears it)."""
    folder = hub_of(request).app.card(card)
    return {"chat_id": chat_id, "title": set_title(folder, chat_id, body.title)}


@router.post("/chats/{card}/{chat_id}/remove")
def remove(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    """Delete the chat's folder after a vault snapshot; the answer says how to undo it."""
    hub = hub_of(request)
    folder = hub.app.card(card)
    chat_dir(folder, chat_id)  # an unknown chat is a 404 before anything is opened
    if hub.chat(folder.folder, chat_id).session.busy:
        raise ConflictError("这个对话正在生成回复（a beat is running）")
    undo = remove_chat(home_of(request), folder, chat_id)
    hub.forget(folder.folder, chat_id)
    return {"removed": chat_id, "undo": undo}
