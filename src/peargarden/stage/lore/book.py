"""Pure edits of a lorebook's JSON for the stage's write tools (spec §8.1, §8.5).

Works on both shapes (standalone ``entries`` object keyed by uid, embedded ``entries`` array) and
returns a new value; the caller writes it atomically.  New and edited entries carry both field-name
families (``key``/``keys``, ``keysecondary``/``secondary_keys``, ``order``/``insertion_order``,
``disable``/``enabled``, ``comment``/``name``) so SillyTavern and embedded-book readers both see them.
Unknown fields of existing entries are kept.

The card's supplement book (``补充设定集.json``) is a standalone book whose uids start at
:data:`SUPPLEMENT_UID_START`, so they never collide with an imported book's entries.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .entries import fingerprint

__all__ = [
    "SUPPLEMENT_UID_START",
    "add_book_entry",
    "delete_book_entry",
    "dump_book",
    "find_book_entry",
    "new_supplement_book",
    "update_book_entry",
]

SUPPLEMENT_UID_START = 9000


def new_supplement_book() -> dict[str, Any]:
    return {"entries": {}}


def dump_book(book: Mapping[str, Any]) -> str:
    """Tab-indented JSON with CJK kept readable and a final newline."""
    return json.dumps(book, ensure_ascii=False, indent="\t") + "\n"


def _slots(book: Mapping[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    entries = book.get("entries")
    if isinstance(entries, dict):
        return [(key, value) for key, value in entries.items() if isinstance(value, dict)]
    if isinstance(entries, list):
        return [(index, value) for index, value in enumerate(entries) if isinstance(value, dict)]
    return []


def find_book_entry(book: Mapping[str, Any], fp: str) -> tuple[Any, dict[str, Any]] | None:
    """The (slot, entry) whose trimmed content has fingerprint *fp*."""
    for slot, raw in _slots(book):
        if fingerprint(str(raw.get("content") or "").replace("\r\n", "\n")) == fp:
            return slot, raw
    return None


def _used_uids(book: Mapping[str, Any]) -> set[int]:
    used: set[int] = set()
    entries = book.get("entries")
    if isinstance(entries, dict):
        used.update(int(key) for key in entries if str(key).isdigit())
    for _slot, raw in _slots(book):
        for field in ("uid", "id"):
            value = raw.get(field)
            if isinstance(value, int) and not isinstance(value, bool):
                used.add(value)
    return used


def _clean_keys(keys: Sequence[str]) -> list[str]:
    out: list[str] = []
    for key in keys:
        key = str(key).strip()
        if key and key not in out:
            out.append(key)
    return out


def _write_fields(
    raw: dict[str, Any],
    *,
    title: str | None = None,
    keys: Sequence[str] | None = None,
    content: str | None = None,
    constant: bool | None = None,
) -> None:
    if title is not None:
        raw["comment"] = title
        raw["name"] = title
    if keys is not None:
        clean = _clean_keys(keys)
        raw["key"] = clean
        raw["keys"] = list(clean)
    if content is not None:
        raw["content"] = content.strip()
    if constant is not None:
        raw["constant"] = constant
    secondary = raw.get("keysecondary") or raw.get("secondary_keys") or []
    if not secondary:
        raw["selective"] = False


def add_book_entry(
    book: Mapping[str, Any],
    *,
    title: str,
    keys: Sequence[str],
    content: str,
    constant: bool = False,
    uid_start: int = 0,
) -> tuple[dict[str, Any], int] | None:
    """A copy of *book* with one new entry, and its uid; None when the content is already there."""
    if find_book_entry(book, fingerprint(content)) is not None:
        return None
    out = copy.deepcopy(dict(book))
    used = _used_uids(out)
    uid = max([uid_start, *(u + 1 for u in used)])
    while uid in used:
        uid += 1
    raw: dict[str, Any] = {
        "uid": uid,
        "id": uid,
        "keysecondary": [],
        "secondary_keys": [],
        "order": 100,
        "insertion_order": 100,
        "position": 0,
        "disable": False,
        "enabled": True,
        "addMemo": True,
        "selective": False,
    }
    _write_fields(raw, title=title, keys=keys, content=content, constant=constant)
    entries = out.get("entries")
    if isinstance(entries, list):
        entries.append(raw)
    else:
        if not isinstance(entries, dict):
            entries = {}
            out["entries"] = entries
        entries[str(uid)] = raw
    return out, uid


def update_book_entry(
    book: Mapping[str, Any],
    fp: str,
    *,
    title: str | None = None,
    keys: Sequence[str] | None = None,
    content: str | None = None,
    constant: bool | None = None,
) -> dict[str, Any] | None:
    """A copy of *book* with the entry *fp* changed; None when no entry has that fingerprint."""
    out = copy.deepcopy(dict(book))
    found = find_book_entry(out, fp)
    if found is None:
        return None
    _write_fields(found[1], title=title, keys=keys, content=content, constant=constant)
    return out


def delete_book_entry(book: Mapping[str, Any], fp: str) -> dict[str, Any] | None:
    """A copy of *book* without the entry *fp*; None when no entry has that fingerprint."""
    out = copy.deepcopy(dict(book))
    found = find_book_entry(out, fp)
    if found is None:
        return None
    entries = out["entries"]
    if isinstance(entries, list):
        entries.pop(found[0])
    else:
        del entries[found[0]]
    return out
