"""A card's chats as files: the list with titles and counts, rename (a title), delete into the vault.

A chat's id is its folder name and the session file's header, so renaming gives it a *title*
(``title.txt`` in its folder) instead of moving it: ``pear chat`` and open tabs keep finding it.
Deleting takes a vault snapshot first and answers with what undoes it (``POST /api/vault/restore``
with that snapshot and path), so a deletion can be taken back from the page.
"""

from __future__ import annotations

import shutil
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from peargarden.app.service import chat_mode
from peargarden.errors import BadInput, NotFound
from peargarden.workspace import atomic
from peargarden.workspace.cards import open_card
from peargarden.workspace.chats import valid_chat_id
from peargarden.workspace.vault import Vault

from .api_chat import hub_of
from .deps import home_of

router = APIRouter(prefix="/api")

TITLE_FILE = "title.txt"
MAX_TITLE = 200


def chat_title(folder: Any, chat_id: str) -> str:
    try:
        return str((folder.chats_dir / chat_id / TITLE_FILE).read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return ""


def visible_count(chat: Any) -> int:
    """The messages the page shows on the active branch (what the user and the character said)."""
    return sum(1 for e in chat.tree.messages() if e.message.get("role") in ("user", "assistant"))


@router.get("/chats/{card}")
def list_chats(request: Request, card: str) -> list[dict[str, Any]]:
    """The card's chats, oldest first: id, title, mode and the count of messages on the active branch."""
    folder = open_card(home_of(request), card)
    chats = hub_of(request).service(card).list_chats(folder.folder)
    return [{"chat_id": chat.chat_id, "title": chat_title(folder, chat.chat_id), "mode": chat_mode(chat),
             "messages": visible_count(chat)} for chat in chats]  # fmt: skip


def _chat_dir(request: Request, card: str, chat_id: str) -> tuple[Any, Any]:
    folder = open_card(home_of(request), card)
    if not valid_chat_id(chat_id) or not (folder.chats_dir / chat_id).is_dir():
        raise NotFound(f"没有对话 {chat_id}（no such chat）")
    return folder, folder.chats_dir / chat_id


class RenameBody(BaseModel):
    title: str = Field(max_length=MAX_TITLE)


@router.post("/chats/{card}/{chat_id}/rename")
def rename(request: Request, card: str, chat_id: str, body: RenameBody) -> dict[str, Any]:
    """Give the chat a title (an empty one clears it)."""
    _, path = _chat_dir(request, card, chat_id)
    title = " ".join(body.title.split())
    if title:
        atomic.write_text(path / TITLE_FILE, title + "\n")
    else:
        (path / TITLE_FILE).unlink(missing_ok=True)
    return {"chat_id": chat_id, "title": title}


@router.post("/chats/{card}/{chat_id}/remove")
def remove(request: Request, card: str, chat_id: str) -> dict[str, Any]:
    """Delete the chat's folder after a vault snapshot; the answer says how to undo it."""
    folder, path = _chat_dir(request, card, chat_id)
    hub = hub_of(request)
    chat = hub.chat(folder.folder, chat_id)
    if chat.lock.locked():
        from peargarden.errors import ConflictError

        raise ConflictError("这个对话正在生成回复（a beat is running）")
    home = home_of(request)
    vault = Vault(home)
    # None: nothing changed since the newest snapshot, which therefore holds the chat as it is.
    info = vault.snapshot(f"删除对话 {folder.folder}/{chat_id}") or vault.latest()
    if info is None:
        raise BadInput("保险库没能留下快照，对话没有删除（vault snapshot failed）")
    shutil.rmtree(path)
    hub.forget(folder.folder, chat_id)
    return {"removed": chat_id, "undo": {"snapshot": info.id, "path": path.relative_to(home.root).as_posix()}}
