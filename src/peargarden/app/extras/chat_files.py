"""What the features keep per chat, in the chat's own folder beside ``session.jsonl``:

- ``translations.json`` — each translated message's other-language text (the user's words when an
  input was sent translated): kept with the chat, in the vault's snapshots;
- ``images/`` — the chat's pictures (vault-covered, as the chat's messages point at them);
- ``.cache/expressions.json``, ``.cache/tts/`` — a reply's expression label and its spoken audio: made
  again when lost, so in the chat's cache folder, which the vault leaves out.

Every record names the text it was made from (a hash of the message's content): a message edited
since is never shown a translation or a label of its old text.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peargarden.errors import BadInput, NotFound
from peargarden.sessions.entries import Entry
from peargarden.workspace import atomic
from peargarden.workspace.home import Home

from ..play.chat_records import find_chat
from ..play.service import ChatOptions, PearApp

if TYPE_CHECKING:
    from ..play.chat_core import ChatCore

TRANSLATIONS_FILE = "translations.json"
IMAGES_DIR = "images"
CACHE_DIR = ".cache"


def chat_dir(session: ChatCore) -> Path:
    return session.chat.path.parent


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read_records(path: Path, *, cache: bool) -> dict[str, Any]:
    """A chat's record file as a dict; none yet is ``{}``.  A damaged cache is dropped (it is made
    again); a damaged record file is one line naming it."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        if cache:
            return {}
        raise BadInput(f"读不了：{error}", path=path) from None
    if not isinstance(found, dict):
        if cache:
            return {}
        raise BadInput("应是一个 JSON 对象", path=path)
    return found


def write_records(path: Path, records: dict[str, Any], *, cache: bool) -> None:
    if cache:
        atomic.write_cache(path, json.dumps(records, ensure_ascii=False).encode("utf-8"))
    else:
        atomic.write_json(path, records)


def message_at(session: ChatCore, index: int) -> Entry:
    """Message *index* of the active branch (numbered from 0, as ``/edit N`` counts)."""
    messages = session.chat.tree.messages()
    if not 0 <= index < len(messages):
        raise BadInput(f"没有第 {index} 条消息：这段对话的当前分支有 {len(messages)} 条（0–{len(messages) - 1}）")
    return messages[index]


def content_of(entry: Entry) -> str:
    return str(entry.message.get("content") or "")


def open_stored_chat(home: Home, chat_id: str, card: str | None = None) -> ChatCore:
    """``--chat ID`` of a command: the chat of the data folder with that id (in *card*, or any card)."""
    record = find_chat(home, chat_id, card)
    if record.chat.tree.leaf is None and not record.chat.tree.messages():
        raise NotFound(f"对话 {chat_id} 还没有消息")
    return PearApp(home).open_chat(record.folder.folder, chat_id, ChatOptions())
