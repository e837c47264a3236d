"""SillyTavern chat JSONL ↔ session entries (pure: decoded lines in, dicts out).

Import: line 1 is ST's header (``user_name``, ``character_name``, ``create_date``, ``chat_metadata``);
each further line a message (``name``, ``is_user``, ``is_system``, ``send_date``, ``mes``, ``extra``,
``swipes``, ``swipe_id``, ``swipe_info``).  Each message becomes a ``message`` entry; a message with
several swipes becomes that many sibling entries (in swipe order) and the story continues from the
chosen one (``swipe_id``).  ST's hidden (``is_system``) messages keep the tag ``"hidden"``.  The original
line is kept under ``message["st"]`` (without ``mes``/``swipes``) so an export loses nothing.

Export: the active branch as ST lines.  A beat's tool rounds collapse into its final reply; the
siblings of a reply become its swipes, the active one chosen by ``swipe_id``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .entries import Entry, message_entry
from .ops import NewId
from .tree import SessionTree

_DROP_ON_IMPORT = ("mes", "swipes", "swipe_id", "swipe_info")


def _reasoning(extra: Any) -> str | None:
    if isinstance(extra, dict) and isinstance(extra.get("reasoning"), str) and extra["reasoning"]:
        return str(extra["reasoning"])
    return None


def _message_from_st(line: dict[str, Any], text: str, swipe_extra: Any, swipe_info: Any = None) -> dict[str, Any]:
    role = "user" if line.get("is_user") else "assistant"
    message: dict[str, Any] = {"role": role, "content": text}
    if isinstance(line.get("name"), str):
        message["name"] = line["name"]
    reasoning = _reasoning(swipe_extra) or (_reasoning(line.get("extra")) if swipe_extra is None else None)
    if reasoning:
        message["reasoning"] = reasoning
    extra = line.get("extra")
    if isinstance(extra, dict) and isinstance(extra.get("model"), str):
        message["model"] = extra["model"]
    if line.get("is_system"):
        message["tags"] = ["hidden"]
    message["st"] = {key: value for key, value in line.items() if key not in _DROP_ON_IMPORT}
    if isinstance(swipe_info, dict):
        # This swipe's own record (send date, generation times, extra): written back on export.
        message["st_swipe_info"] = swipe_info
    return message


@dataclass(frozen=True)
class ImportedChat:
    header: dict[str, Any]  # ST's header line ({} for a headerless file)
    entries: list[Entry]  # in append order (each entry's parent comes before it)
    leaf: str | None  # the end of the chosen-swipe chain: where the story continues


def import_chat(lines: Sequence[dict[str, Any]], new_id: NewId, timestamp: str) -> ImportedChat:
    """Entries for decoded ST chat lines (header line first, if any)."""
    if not lines:
        return ImportedChat({}, [], None)
    header = lines[0] if "mes" not in lines[0] else {}
    body = lines[1:] if header else lines
    entries: list[Entry] = []
    parent: str | None = None
    for line in body:
        if not isinstance(line, dict) or "mes" not in line:
            continue
        swipes = line.get("swipes")
        infos = line.get("swipe_info")
        if not line.get("is_user") and isinstance(swipes, list) and len(swipes) > 1:
            chosen_index = line.get("swipe_id") if isinstance(line.get("swipe_id"), int) else 0
            chosen_id: str | None = None
            for index, swipe in enumerate(swipes):
                info = infos[index] if isinstance(infos, list) and index < len(infos) else None
                swipe_extra = info.get("extra") if isinstance(info, dict) else {}
                message = _message_from_st(line, str(swipe), swipe_extra, info)
                entry = message_entry(new_id(), parent, timestamp, message)
                entries.append(entry)
                if index == chosen_index:
                    chosen_id = entry.id
            parent = chosen_id or entries[-1].id
            continue
        entry = message_entry(new_id(), parent, timestamp, _message_from_st(line, str(line.get("mes", "")), None))
        entries.append(entry)
        parent = entry.id
    return ImportedChat(header, entries, parent)


def _beat_reply(tree: SessionTree, head: Entry) -> tuple[str, str | None]:
    """The final reply (text, reasoning) of the beat starting at *head*, following newest children."""
    text, reasoning = str(head.message.get("content") or ""), head.message.get("reasoning")
    current = head
    while True:
        kids = [kid for kid in tree.children(current.id) if not (kid.type == "message" and kid.role == "user")]
        if not kids:
            break
        current = kids[-1]
        if current.type == "message" and current.role == "assistant" and current.message.get("content"):
            text, reasoning = str(current.message["content"]), current.message.get("reasoning")
    return text, reasoning if isinstance(reasoning, str) else None


def _st_line(message: dict[str, Any], text: str, fallback_name: str, timestamp: str) -> dict[str, Any]:
    base = dict(message.get("st") or {})
    base.setdefault("name", message.get("name") or fallback_name)
    base["is_user"] = message.get("role") == "user"
    base.setdefault("is_system", "hidden" in (message.get("tags") or []))
    base.setdefault("send_date", timestamp)
    base["mes"] = text
    extra = dict(base.get("extra") or {})
    if message.get("reasoning"):
        extra["reasoning"] = message["reasoning"]
    if message.get("model"):
        extra["model"] = message["model"]
    base["extra"] = extra
    return base


def export_chat(tree: SessionTree, header: dict[str, Any], user_name: str, character_name: str) -> list[dict[str, Any]]:
    """The active branch as ST chat lines (header first)."""
    head_line = dict(header) if header else {}
    if not header or "create_date" in header or "user_name" not in header:
        # A new chat, or one in the 1.12 header style; a 1.13+ header (chat_metadata first,
        # names "unused", no create_date) is written back as it came.
        head_line.setdefault("user_name", user_name)
        head_line.setdefault("character_name", character_name)
        head_line.setdefault("create_date", "")
    head_line.setdefault("chat_metadata", {})
    out: list[dict[str, Any]] = [head_line]
    path = tree.path()
    index = 0
    while index < len(path):
        entry = path[index]
        index += 1
        if entry.type != "message" or entry.role not in ("user", "assistant"):
            continue
        fallback = user_name if entry.role == "user" else character_name
        if entry.role == "user":
            out.append(_st_line(entry.message, str(entry.message.get("content") or ""), fallback, entry.timestamp))
            continue
        # An assistant reply: collapse its tool rounds, and offer its siblings as swipes.
        head_at = index - 1
        while index < len(path) and not (path[index].type == "message" and path[index].role == "user"):
            index += 1
        kin = tree.siblings(entry.id)
        replies = [_beat_reply(tree, sibling) for sibling in kin]
        chosen = kin.index(entry)
        text, reasoning = _beat_reply_on_path(path, head_at)
        replies[chosen] = (text, reasoning)
        line = _st_line({**entry.message, "reasoning": reasoning}, text, fallback, entry.timestamp)
        if len(kin) > 1:
            line["swipes"] = [reply for reply, _ in replies]
            line["swipe_id"] = chosen
            line["swipe_info"] = [_swipe_info(sibling, r) for sibling, (_, r) in zip(kin, replies, strict=True)]
        out.append(line)
    return out


def _swipe_info(entry: Entry, reasoning: str | None) -> dict[str, Any]:
    kept = entry.message.get("st_swipe_info")
    if isinstance(kept, dict):
        info = dict(kept)
        extra = dict(info.get("extra") or {}) if isinstance(info.get("extra"), dict) else {}
        if reasoning:
            extra["reasoning"] = reasoning
        info["extra"] = extra
        return info
    return {"send_date": entry.timestamp, "extra": {"reasoning": reasoning} if reasoning else {}}


def _beat_reply_on_path(path: list[Entry], at: int) -> tuple[str, str | None]:
    """The final reply of the beat whose head is ``path[at]`` (an index: a search would make a long
    chat's export quadratic)."""
    head = path[at]
    text, reasoning = str(head.message.get("content") or ""), head.message.get("reasoning")
    for entry in itertools.islice(path, at + 1, None):
        if entry.type == "message" and entry.role == "user":
            break
        if entry.type == "message" and entry.role == "assistant" and entry.message.get("content"):
            text, reasoning = str(entry.message["content"]), entry.message.get("reasoning")
    return text, reasoning if isinstance(reasoning, str) else None
