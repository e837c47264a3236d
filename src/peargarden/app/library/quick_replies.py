"""Quick Reply sets for the fronts: list them with what is switched on, save one edited in the page,
import SillyTavern's set files, export them, delete, and switch sets on for every chat or one chat.

Sets live in ``library/quick-replies/<name>.json`` as SillyTavern writes them (unknown fields kept);
which are on for every chat in ``library/quick-replies.json``; a chat's own in its metadata
(``chat_metadata.quickReply.setList``, as SillyTavern keeps it).
"""

from __future__ import annotations

import json
from typing import Any

from peargarden.errors import BadInput, FormatError, NotFound
from peargarden.formats import parse_json_bytes
from peargarden.stscript.quickreplies import AUTOMATIONS, QuickReplyLibrary, QuickReplySet
from peargarden.workspace.home import Home
from peargarden.workspace.quick_reply_files import delete_set, load_library, save_links, save_set


def _links(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise BadInput('setList 应为列表：[{"set": 名字, "isVisible": true}]')
    links = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("set"), str):
            raise BadInput("setList 的每一项都要有 set（集的名字）")
        links.append({"set": item["set"], "isVisible": bool(item.get("isVisible", True))})
    return links


def quick_reply_sets(home: Home, chat_links: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Every set (its whole file), the sets on for every chat, and those on for the chat given."""
    library = load_library(home)
    return {
        "sets": [found.to_json() for found in library.sets.values()],
        "global": library.global_sets,
        "chat": [link for link in chat_links or [] if link.get("set") in library.sets],
        "automations": dict(AUTOMATIONS),
    }


def save_quick_reply_set(home: Home, data: Any, *, rename_from: str | None = None) -> dict[str, Any]:
    """A set edited in the page (or imported), checked and written; a rename moves the file."""
    try:
        found = QuickReplySet.from_json(data)
    except ValueError as error:
        raise BadInput(str(error)) from None
    save_set(home, found)
    if rename_from and rename_from != found.name:
        delete_set(home, rename_from)
        library = load_library(home)
        for link in library.global_sets:
            if link.get("set") == rename_from:
                link["set"] = found.name
        save_links(home, library)
    return found.to_json()


def import_quick_reply_set(home: Home, raw: bytes, filename: str) -> dict[str, Any]:
    """A SillyTavern Quick Reply set file (``*.json``): checked whole before it is written."""
    value = parse_json_bytes(raw, filename, "Quick Reply 集")
    try:
        found = QuickReplySet.from_json(value)
    except ValueError as error:
        raise FormatError(str(error), path=filename) from None
    save_set(home, found)
    return found.to_json()


def export_quick_reply_set(home: Home, name: str) -> bytes:
    found = load_library(home).get(name)
    if found is None:
        raise NotFound(f"没有 Quick Reply 集 {name}")
    return (json.dumps(found.to_json(), ensure_ascii=False, indent=4) + "\n").encode("utf-8")


def delete_quick_reply_set(home: Home, name: str) -> None:
    library = load_library(home)
    if library.get(name) is None:
        raise NotFound(f"没有 Quick Reply 集 {name}")
    delete_set(home, name)
    library.sets.pop(name, None)
    library.global_sets = [link for link in library.global_sets if link.get("set") != name]
    save_links(home, library)


def set_global_quick_replies(home: Home, links: Any) -> list[dict[str, Any]]:
    """The sets on for every chat (in this order)."""
    library: QuickReplyLibrary = load_library(home)
    chosen = _links(links)
    unknown = [link["set"] for link in chosen if link["set"] not in library.sets]
    if unknown:
        raise NotFound(f"没有 Quick Reply 集 {'、'.join(unknown)}")
    library.global_sets = chosen
    save_links(home, library)
    return chosen


def chat_quick_reply_links(links: Any) -> dict[str, Any]:
    """A chat's own sets as its metadata keeps them (``{"setList": […]}``)."""
    return {"setList": _links(links)}


__all__ = [
    "chat_quick_reply_links",
    "delete_quick_reply_set",
    "export_quick_reply_set",
    "import_quick_reply_set",
    "quick_reply_sets",
    "save_quick_reply_set",
    "set_global_quick_replies",
]
