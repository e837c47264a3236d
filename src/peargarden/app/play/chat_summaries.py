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
from peargarden.workspace import atomic
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chat_import import IMPORTED_CHAT_FILE
from peargarden.workspace.chats import SESSION_FILE, ChatFile, branch_mode, list_chats

CACHE_VERSION = 3


def summarize(folder: CardFolder, chat: ChatFile) -> dict[str, Any]:
    """The facts a chat list shows (``pear sessions list --json`` prints these keys)."""
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
        "visible": sum(1 for e in messages if e.message.get("role") in ("user", "assistant")),
        "entries": len(chat.tree),
        "last": str(last.message.get("content") or "") if last else "",
        "swipe": [position, count],
        "warnings": chat.warnings,
    }


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
            summary = hit["summary"]
        else:
            summary = summarize(folder, ChatFile.open(folder.chats_dir, chat_id, write_index=False))
        fresh[chat_id] = {"stamp": stamp, "summary": summary}
        out.append(summary)
    if fresh != cached:
        with contextlib.suppress(OSError):  # a read-only data folder still lists its chats
            atomic.write_json(path, {"version": CACHE_VERSION, "chats": fresh}, indent=None)
    return out


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
