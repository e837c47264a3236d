"""Lorebooks: SillyTavern standalone world info ⇄ a card's embedded ``character_book``.

Standalone: ``{"entries": {"<uid>": entry, ...}, "originalData"?: <embedded book>}``.  Reading
keeps entries exactly as stored (SillyTavern's scan engine does not fill in missing fields, so
neither do we); ``new_entry`` gives a complete entry with the editor's defaults for new content.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from peargarden.errors import FormatError

from ._common import JsonObject, parse_json_bytes

# SillyTavern's editor template for a new entry (``newWorldInfoEntryDefinition``), 1.18 field set.
WI_ENTRY_DEFAULTS: JsonObject = {
    "key": [],
    "keysecondary": [],
    "comment": "",
    "content": "",
    "constant": False,
    "vectorized": False,
    "selective": True,
    "selectiveLogic": 0,
    "addMemo": False,
    "order": 100,
    "position": 0,
    "disable": False,
    "ignoreBudget": False,
    "excludeRecursion": False,
    "preventRecursion": False,
    "matchPersonaDescription": False,
    "matchCharacterDescription": False,
    "matchCharacterPersonality": False,
    "matchCharacterDepthPrompt": False,
    "matchScenario": False,
    "matchCreatorNotes": False,
    "delayUntilRecursion": 0,
    "probability": 100,
    "useProbability": True,
    "depth": 4,
    "outletName": "",
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "scanDepth": None,
    "caseSensitive": None,
    "matchWholeWords": None,
    "useGroupScoring": None,
    "automationId": "",
    "role": 0,
    "sticky": None,
    "cooldown": None,
    "delay": None,
    "triggers": [],
}

# Standalone field ⇄ key inside an embedded entry's ``extensions`` (spec §6.5), with the value
# used when converting a card's book and the key is missing.
_EXT_FIELDS: tuple[tuple[str, str, Any], ...] = (
    ("excludeRecursion", "exclude_recursion", False),
    ("preventRecursion", "prevent_recursion", False),
    ("delayUntilRecursion", "delay_until_recursion", False),
    ("probability", "probability", 100),
    ("useProbability", "useProbability", True),
    ("depth", "depth", 4),
    ("selectiveLogic", "selectiveLogic", 0),
    ("role", "role", 0),
    ("group", "group", ""),
    ("groupOverride", "group_override", False),
    ("groupWeight", "group_weight", 100),
    ("scanDepth", "scan_depth", None),
    ("caseSensitive", "case_sensitive", None),
    ("matchWholeWords", "match_whole_words", None),
    ("useGroupScoring", "use_group_scoring", None),
    ("automationId", "automation_id", ""),
    ("vectorized", "vectorized", False),
    ("sticky", "sticky", None),
    ("cooldown", "cooldown", None),
    ("delay", "delay", None),
    ("outletName", "outlet_name", ""),
    ("matchPersonaDescription", "match_persona_description", False),
    ("matchCharacterDescription", "match_character_description", False),
    ("matchCharacterPersonality", "match_character_personality", False),
    ("matchCharacterDepthPrompt", "match_character_depth_prompt", False),
    ("matchScenario", "match_scenario", False),
    ("matchCreatorNotes", "match_creator_notes", False),
    ("triggers", "triggers", []),
    ("ignoreBudget", "ignore_budget", False),
)
# The keys we write into an embedded entry's extensions; everything else there is third-party.
_MAPPED_EXT_KEYS = frozenset({"position", "display_index"} | {ext for _, ext, _ in _EXT_FIELDS})

# Fields SillyTavern writes with a fixed value when they are null or missing (card's book).
# SillyTavern also turns a null ``useGroupScoring`` ("use the global setting") into false, which
# changes its meaning; we keep the null.
_TO_BOOK_MISSING: dict[str, Any] = {
    "probability": None,
    "useProbability": False,
    "depth": 4,
    "selectiveLogic": 0,
    "group": "",
    "groupOverride": False,
    "groupWeight": None,
    "role": 0,
}


def new_entry(uid: int, **fields: Any) -> JsonObject:
    """A complete standalone entry with SillyTavern's editor defaults; *fields* override them."""
    entry: JsonObject = {"uid": uid, **copy.deepcopy(WI_ENTRY_DEFAULTS), "displayIndex": uid}
    entry.update(fields)
    return entry


def fill_entry_defaults(entry: JsonObject) -> JsonObject:
    """A copy of *entry* with every missing field set to the editor default (as the ST editor
    does when it saves a book).  The scan engine must not use this on imported books."""
    filled = copy.deepcopy(entry)
    for key, value in WI_ENTRY_DEFAULTS.items():
        filled.setdefault(key, copy.deepcopy(value))
    if isinstance(filled.get("uid"), int):
        filled.setdefault("displayIndex", filled["uid"])
    return filled


def new_lorebook(entries: list[JsonObject] | None = None) -> JsonObject:
    """A standalone book whose ``entries`` are keyed by each entry's ``uid``."""
    return {"entries": {str(e["uid"]): e for e in entries or []}}


def next_uid(book: JsonObject) -> int:
    """The smallest unused uid ≥ 0 (SillyTavern's rule for a new entry)."""
    used = {int(k) for k in book.get("entries", {}) if str(k).lstrip("-").isdigit()}
    uid = 0
    while uid in used:
        uid += 1
    return uid


def is_lorebook_object(obj: JsonObject) -> bool:
    """True for a standalone book, a ``lorebook_v3`` export or a bare embedded book."""
    if obj.get("spec") == "lorebook_v3":
        return isinstance(obj.get("data"), dict)
    if "spec" in obj:
        return False
    entries = obj.get("entries")
    if isinstance(entries, dict):
        return all(isinstance(e, dict) for e in entries.values())
    if isinstance(entries, list):
        return all(isinstance(e, dict) for e in entries)
    return False


def read_lorebook(data: bytes, filename: str) -> JsonObject:
    """A standalone SillyTavern book from JSON bytes.

    Accepts the standalone shape (returned as stored), ``{"spec": "lorebook_v3", "data": book}``
    and a bare embedded book (both converted with ``lorebook_from_character_book``).
    """
    obj = parse_json_bytes(data, filename, "世界书 JSON ")
    return lorebook_from_object(obj, filename)


def lorebook_from_object(obj: JsonObject, filename: str) -> JsonObject:
    if not is_lorebook_object(obj):
        raise FormatError("这个 JSON 不是世界书：缺少 entries（JSON is not a lorebook）", path=filename)
    if obj.get("spec") == "lorebook_v3":
        inner = obj["data"]
        if not isinstance(inner.get("entries"), list):
            raise FormatError("lorebook_v3 的 entries 不是列表（lorebook_v3 entries not a list）", path=filename)
        return lorebook_from_character_book(inner, str(inner.get("name") or ""))
    if isinstance(obj["entries"], list):
        listed = obj["entries"]
        if listed and all("key" in e and "keys" not in e for e in listed):
            # Standalone entries written as a list by some tools: key them by uid.
            return {**obj, "entries": _keyed_by_uid(listed)}
        return lorebook_from_character_book(obj, str(obj.get("name") or ""))
    for uid, entry in obj["entries"].items():
        for field in ("key", "keysecondary"):
            keys = entry.get(field)
            if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
                raise FormatError(
                    f"世界书条目 {uid!r} 的 {field} 不是字符串列表（entry keys must be a list of strings）",
                    path=filename,
                )
    return obj


def lorebook_from_character_book(book: JsonObject, name: str = "", *, editor_resave: bool = True) -> JsonObject:
    """A card's embedded book as a standalone book (SillyTavern's "Import Card Lore" mapping).

    The whole embedded book is kept as ``originalData``.  *name* is informational only here (a
    standalone book's name is its file name; SillyTavern uses ``book.name`` or "<char>'s Lorebook").

    SillyTavern's converter keeps ``selective: false``, but the import then opens the World Info
    editor, which re-saves every entry with ``selective: true`` (observed in oracle case 18: the
    secondary keys of such an entry are enforced).  ``editor_resave=True`` reproduces what a
    SillyTavern user ends up with; ``False`` gives the converter's plain output.
    """
    del name
    original = copy.deepcopy(book)
    listed = original.get("entries")
    sources = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    # Two entries with the same id must not overwrite each other: a repeated or missing id gets
    # the array index or, if that is taken too, the smallest free uid.
    taken: set[int] = set()
    entries: JsonObject = {}
    for index, source in enumerate(sources):
        ext = source.get("extensions") if isinstance(source.get("extensions"), dict) else {}
        assert isinstance(ext, dict)
        uid = source.get("id")
        if not isinstance(uid, int) or isinstance(uid, bool) or uid in taken:
            uid = index
            while uid in taken:
                uid += 1
            source["id"] = uid
        taken.add(uid)
        comment = source.get("comment") or ""
        entry: JsonObject = {
            "uid": uid,
            "key": _str_list(source.get("keys")),
            "keysecondary": _str_list(source.get("secondary_keys")),
            "comment": comment,
            "content": source.get("content") or "",
            "constant": bool(source.get("constant") or False),
            "selective": bool(source.get("selective") or False),
            "order": source.get("insertion_order", 100),
            "position": ext["position"] if "position" in ext else (0 if source.get("position") == "before_char" else 1),
            "disable": not source.get("enabled", True),
            "addMemo": bool(comment),
            "displayIndex": ext.get("display_index", index),
        }
        for field, ext_key, default in _EXT_FIELDS:
            # SillyTavern reads these with `??`: a null counts as missing.
            value = ext.get(ext_key)
            entry[field] = copy.deepcopy(default if value is None else value)
        if editor_resave:
            entry["selective"] = True
        extra = {k: copy.deepcopy(v) for k, v in ext.items() if k not in _MAPPED_EXT_KEYS}
        if extra:
            entry["extensions"] = extra
        entries[str(uid)] = entry
    return {"entries": entries, "originalData": original}


def character_book_from_lorebook(book: JsonObject, name: str = "") -> JsonObject:
    """A standalone book as a card's embedded ``character_book`` (SillyTavern's save mapping).

    Unlike SillyTavern we also write ``extensions: {}`` on the book, which the V2/V3 specs require.
    Entries come out in numeric uid order.
    """
    raw_entries = book.get("entries")
    if isinstance(raw_entries, dict):
        items: list[Any] = list(raw_entries.values())
    else:
        items = raw_entries if isinstance(raw_entries, list) else []
    sources = [e for e in items if isinstance(e, dict)]
    sources.sort(key=_uid_order)
    entries = []
    for entry in sources:
        ext: JsonObject = copy.deepcopy(entry["extensions"]) if isinstance(entry.get("extensions"), dict) else {}
        ext["position"] = entry.get("position", 0)
        ext["display_index"] = entry.get("displayIndex", entry.get("uid"))
        for field, ext_key, _ in _EXT_FIELDS:
            value = entry.get(field)
            if value is None and field in _TO_BOOK_MISSING:
                # SillyTavern writes these with `??`: null or missing becomes its fixed value.
                ext[ext_key] = _TO_BOOK_MISSING[field]
            elif field in entry:
                ext[ext_key] = copy.deepcopy(value)
            else:
                ext[ext_key] = copy.deepcopy(WI_ENTRY_DEFAULTS.get(field))
        entries.append(
            {
                "id": entry.get("uid"),
                "keys": _str_list(entry.get("key")),
                "secondary_keys": _str_list(entry.get("keysecondary")),
                "comment": entry.get("comment", ""),
                "content": entry.get("content", ""),
                "constant": bool(entry.get("constant", False)),
                "selective": bool(entry.get("selective", False)),
                "insertion_order": entry.get("order", 100),
                "enabled": not entry.get("disable", False),
                "position": "before_char" if entry.get("position", 0) == 0 else "after_char",
                "use_regex": True,
                "extensions": ext,
            }
        )
    result: JsonObject = {"name": name, "entries": entries, "extensions": {}}
    return result


def _uid_order(entry: JsonObject) -> int:
    uid = entry.get("uid")
    return uid if isinstance(uid, int) else 0


def _str_list(value: Any) -> list[str]:
    """Keys as a list of strings (a lone string becomes one key, anything else none)."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, (str, int, float)) and not isinstance(v, bool)]
    return []


def _keyed_by_uid(entries: list[JsonObject]) -> JsonObject:
    keyed: JsonObject = {}
    for index, entry in enumerate(entries):
        uid = entry.get("uid")
        if not isinstance(uid, int) or isinstance(uid, bool) or str(uid) in keyed:
            uid = index
            while str(uid) in keyed:
                uid += 1
        keyed[str(uid)] = {**entry, "uid": uid}
    return keyed


def normalized_character_book(book: JsonObject) -> JsonObject | None:
    """An embedded ``character_book`` whose ``entries`` are not the list the spec asks for, made one;
    ``None`` when it already is.  Raises :class:`FormatError` for what cannot be made one.

    Card tools write ``entries`` the way standalone books keep them (an object keyed by uid) or as
    JSON text; SillyTavern's World Info reads either shape once it is a book.  So an object whose
    values are all entries becomes the list of them (in key order, numeric keys by number), JSON text
    is read and treated the same way, and an empty value means no entries.  Anything else (a number,
    prose, an object of non-entries) is refused with the reason.
    """
    entries = book.get("entries")
    if isinstance(entries, list):
        return None
    if entries is None or (isinstance(entries, str) and not entries.strip()):
        return {**book, "entries": []}
    if isinstance(entries, str):
        try:
            entries = json.loads(entries)
        except ValueError:
            raise FormatError(
                "内嵌世界书的 entries 是一段文字，不是条目（character_book.entries is text, not entries）"
            ) from None
        if isinstance(entries, list) and all(isinstance(e, dict) for e in entries):
            return {**book, "entries": entries}
    if isinstance(entries, dict) and all(isinstance(e, dict) for e in entries.values()):
        keys = sorted(entries, key=lambda k: (0, int(k), "") if str(k).lstrip("-").isdigit() else (1, 0, str(k)))
        return {**book, "entries": [entries[k] for k in keys]}
    kind = type(entries).__name__
    raise FormatError(f"内嵌世界书的 entries 不是条目列表（character_book.entries is a {kind}）")
