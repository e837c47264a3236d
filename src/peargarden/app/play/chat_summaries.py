"""A small summary per chat, so listing a card's chats does not read every session file.

``sessions list`` and the web's chat list need a few facts per chat (message count, last line, mode).
Reading a 20,000-message session file for them costs a tenth of a second or more per chat; these
summaries are kept in one cache file per card under ``vault/cache/`` (the program's own folder, never
snapshotted) and each is trusted only while its session file's size, mtime and inode are unchanged.
A chat that changed is read again and its summary replaced; a cache that cannot be read or written is
simply rebuilt or skipped (it is never the only copy of anything).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from peargarden.sessions import ops
from peargarden.sessions.entries import Entry
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chat_import import IMPORTED_CHAT_FILE
from peargarden.workspace.chats import SESSION_FILE, ChatFile, branch_mode, list_chats
from peargarden.workspace.groups import GroupFolder

CACHE_VERSION = 4


def summarize(
    folder: CardFolder | GroupFolder, chat: ChatFile, grown_from: tuple[str, int] | None = None
) -> dict[str, Any]:
    """The facts a chat list shows (``pear sessions list --json`` prints these keys).  *grown_from*:
    (leaf, visible count) of the chat's last summary; when the branch grew from that leaf only what
    it grew by is counted (the roles of 20,000 messages cost a second to read)."""
    messages = chat.tree.messages()
    last = messages[-1] if messages else None
    position, count = ops.swipe_position(chat.tree)
    return {
        "id": chat.chat_id,
        "card": folder.folder,
        "mode": chat.header.get("mode", "stage"),
        "branch_mode": branch_mode(chat),
        "created": chat.header.get("timestamp"),
        # (entries of an imported chat have no timestamp of their own: the import's is the header's)
        "updated": max((e.timestamp for e in chat.tree if e.timestamp), default=chat.header.get("timestamp")),
        "messages": len(messages),
        # What a chat page shows: the messages the user and the character said.
        "visible": _visible(chat, messages, grown_from),
        "entries": len(chat.tree),
        "last": str(last.message.get("content") or "") if last else "",
        "swipe": [position, count],
        "warnings": chat.warnings,
    }


# How far back from the leaf a summary looks for the leaf of the last one (a few beats' entries).
_GROWN = 2000


def _visible(chat: ChatFile, messages: list[Entry], grown_from: tuple[str, int] | None) -> int:
    """The user's and the character's messages on the active branch."""
    if grown_from is not None:
        old_leaf, counted = grown_from
        for steps, entry in enumerate(reversed(chat.tree.path())):
            if entry.id == old_leaf:
                return counted
            if steps >= _GROWN:
                break
            if entry.type == "message" and entry.role in ("user", "assistant"):
                counted += 1
    return sum(1 for e in messages if e.role in ("user", "assistant"))


def cache_file(folder: CardFolder) -> Path:
    digest = hashlib.sha256(folder.folder.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return folder.home.vault_dir / "cache" / f"chats-{digest}.json"


def chat_summaries(folder: CardFolder) -> list[dict[str, Any]]:
    """The summaries of *folder*'s chats in id order, from the cache where still valid."""
    path = cache_file(folder)
    cached = _read_cache(path)
    fresh: dict[str, Any] = {}
    out: list[dict[str, Any]] = []
    for chat_id in list_chats(folder.chats_dir):
        stamp = _stamp(folder.chats_dir / chat_id)
        hit = cached.get(chat_id)
        if isinstance(hit, dict) and hit.get("stamp") == stamp and isinstance(hit.get("summary"), dict):
            summary, leaf = hit["summary"], hit.get("leaf")
        else:
            chat = ChatFile.open(folder.chats_dir, chat_id, write_index=False)
            summary = summarize(folder, chat, _grown_from(hit, stamp))
            leaf = chat.tree.leaf
        fresh[chat_id] = {"stamp": stamp, "summary": summary, "leaf": leaf}
        out.append(summary)
    if fresh != cached:
        with contextlib.suppress(OSError):  # a read-only data folder still lists its chats
            atomic.write_json(path, {"version": CACHE_VERSION, "chats": fresh}, indent=None)
    return out


def _grown_from(hit: Any, stamp: list[Any] | None) -> tuple[str, int] | None:
    """The last summary's leaf and count when the same file only grew since (appended to)."""
    if not isinstance(hit, dict) or not isinstance(hit.get("stamp"), list) or stamp is None:
        return None
    old, leaf, summary = hit["stamp"], hit.get("leaf"), hit.get("summary")
    same_file = len(old) == 4 and old[0] == stamp[0] == SESSION_FILE and old[3] == stamp[3]
    if not (same_file and isinstance(old[1], int) and old[1] <= stamp[1] and isinstance(leaf, str)):
        return None
    visible = summary.get("visible") if isinstance(summary, dict) else None
    return (leaf, visible) if isinstance(visible, int) else None


def _stamp(chat_dir: Path) -> list[Any] | None:
    for name in (SESSION_FILE, IMPORTED_CHAT_FILE):
        try:
            info = (chat_dir / name).stat()
        except OSError:
            continue
        return [name, info.st_size, info.st_mtime_ns, info.st_ino]
    return None


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(value, dict) or value.get("version") != CACHE_VERSION or not isinstance(value.get("chats"), dict):
        return {}
    chats: dict[str, Any] = value["chats"]
    return chats
