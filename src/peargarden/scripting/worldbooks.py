"""TavernHelper's world books: the entry as scripts see it (``WorldbookEntry``: ``strategy``,
``position``, ``recursion``, ``effect``…) and back to SillyTavern's stored entry, plus the book
functions (``getWorldbook``, ``replaceWorldbook``, ``createWorldbook``…) over the host's books.

The conversions follow TavernHelper 4.9.3's ``function/worldbook.ts`` (read for behaviour): a key
written ``/…/flags`` is a regular expression (a ``RegExp`` on the script's side, carried over the
bridge as ``{"__th_regexp": [source, flags]}``); a book is written whole, its entries keyed by uid,
an entry without a uid given a free one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from peargarden.variables.jsvalues import UNDEFINED, clone

from .host import ScriptError, ScriptHost

REGEXP = "__th_regexp"
_LOGIC = {0: "and_any", 1: "not_all", 2: "not_any", 3: "and_all"}
_POSITIONS = {
    0: "before_character_definition",
    1: "after_character_definition",
    5: "before_example_messages",
    6: "after_example_messages",
    2: "before_author_note",
    3: "after_author_note",
    4: "at_depth",
    7: "outlet",
}
_ROLES = {0: "system", 1: "user", 2: "assistant"}
# Fields TavernHelper passes through untouched, with the values a new entry gets.
_IMPLICIT: dict[str, Any] = {
    "addMemo": True,
    "matchPersonaDescription": False,
    "matchCharacterDescription": False,
    "matchCharacterPersonality": False,
    "matchCharacterDepthPrompt": False,
    "matchScenario": False,
    "matchCreatorNotes": False,
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "caseSensitive": None,
    "matchWholeWords": None,
    "useGroupScoring": None,
    "automationId": "",
    "ignoreBudget": False,
    "outletName": "",
    "triggers": [],
    "characterFilter": {"isExclude": False, "names": [], "tags": []},
}
_REGEX_TEXT = re.compile(r"^/([\w\W]+?)/([gimsuy]*)$")
_MAX_UID = 1_000_000


def _regex_key(text: Any) -> Any:
    """SillyTavern's ``parseRegexFromString``: ``/…/flags`` (no unescaped ``/`` inside) is a regex."""
    if not isinstance(text, str):
        return text
    match = _REGEX_TEXT.match(text)
    if not match or re.search(r"(^|[^\\])/", match.group(1)):
        return text
    return {REGEXP: [match.group(1).replace("\\/", "/", 1), match.group(2)]}


def _key_text(key: Any) -> str:
    """``_.toString(key)``: a regex as ``/source/flags``."""
    if isinstance(key, dict) and isinstance(key.get(REGEXP), list) and len(key[REGEXP]) == 2:
        source, flags = key[REGEXP]
        return f"/{source}/{flags}"
    if key is None or key is UNDEFINED:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _positive(value: Any) -> Any:
    return value if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else None


def to_script_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A stored entry as ``getWorldbook`` gives it."""
    strategy = "constant" if entry.get("constant") else "vectorized" if entry.get("vectorized") else "selective"
    out: dict[str, Any] = {
        "uid": entry.get("uid", UNDEFINED),
        "name": entry.get("comment", UNDEFINED),
        "enabled": not entry.get("disable"),
        "strategy": {
            "type": strategy,
            "keys": [_regex_key(k) for k in entry.get("key") or []],
            "keys_secondary": {
                "logic": _LOGIC.get(entry.get("selectiveLogic"), UNDEFINED),  # type: ignore[arg-type]
                "keys": [_regex_key(k) for k in entry.get("keysecondary") or []],
            },
            "scan_depth": entry["scanDepth"] if entry.get("scanDepth") is not None else "same_as_global",
        },
        "position": {
            "type": _POSITIONS.get(entry.get("position"), UNDEFINED),  # type: ignore[arg-type]
            "role": _ROLES.get(entry.get("role") if entry.get("role") is not None else 0, UNDEFINED),  # type: ignore[arg-type]
            "depth": entry.get("depth", UNDEFINED),
            "order": entry.get("order", UNDEFINED),
        },
        "content": entry.get("content", UNDEFINED),
        "probability": entry.get("probability", UNDEFINED) if entry.get("useProbability") else 100,
        "recursion": {
            "prevent_incoming": entry.get("excludeRecursion", UNDEFINED),
            "prevent_outgoing": entry.get("preventRecursion", UNDEFINED),
            "delay_until": _positive(entry.get("delayUntilRecursion")),
        },
        "effect": {
            "sticky": _positive(entry.get("sticky")),
            "cooldown": _positive(entry.get("cooldown")),
            "delay": _positive(entry.get("delay")),
        },
    }
    if entry.get("extra"):
        out["extra"] = clone(entry["extra"])
    for key in _IMPLICIT:
        if key in entry:
            out[key] = clone(entry[key])
    return out


def _get(value: Any, *path: str) -> Any:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return None if value is UNDEFINED else value


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def from_script_entry(entry: dict[str, Any], display_index: int) -> dict[str, Any]:
    """A script's entry (partial: what it leaves out takes TavernHelper's defaults) as stored."""
    kind = _get(entry, "strategy", "type")
    logic = _or(_get(entry, "strategy", "keys_secondary", "logic"), "and_any")
    position = _or(_get(entry, "position", "type"), "at_depth")
    role = _or(_get(entry, "position", "role"), "system")
    scan_depth = _get(entry, "strategy", "scan_depth")
    out: dict[str, Any] = {
        "uid": entry.get("uid"),
        "displayIndex": display_index,
        "comment": _or(entry.get("name"), ""),
        "disable": not _or(entry.get("enabled"), True),
        "constant": kind == "constant" if kind else True,
        "selective": kind == "selective",
        "key": [_key_text(k) for k in _or(_get(entry, "strategy", "keys"), [])],
        "selectiveLogic": {"and_any": 0, "not_all": 1, "not_any": 2, "and_all": 3}.get(logic, UNDEFINED),
        "keysecondary": [_key_text(k) for k in _or(_get(entry, "strategy", "keys_secondary", "keys"), [])],
        "scanDepth": None if scan_depth == "same_as_global" else scan_depth,
        "vectorized": kind == "vectorized",
        "position": {name: number for number, name in _POSITIONS.items()}.get(position, UNDEFINED),
        "role": {"system": 0, "user": 1, "assistant": 2}.get(role, UNDEFINED),
        "depth": _or(_get(entry, "position", "depth"), 4),
        "order": _or(_get(entry, "position", "order"), 100),
        "content": _or(entry.get("content"), ""),
        "useProbability": True,
        "probability": _or(entry.get("probability"), 100),
        "excludeRecursion": _or(_get(entry, "recursion", "prevent_incoming"), False),
        "preventRecursion": _or(_get(entry, "recursion", "prevent_outgoing"), False),
        "delayUntilRecursion": _or(_get(entry, "recursion", "delay_until"), False),
        "sticky": _get(entry, "effect", "sticky"),
        "cooldown": _get(entry, "effect", "cooldown"),
        "delay": _get(entry, "effect", "delay"),
    }
    if entry.get("extra"):
        out["extra"] = clone(entry["extra"])
    for key, default in _IMPLICIT.items():
        out[key] = clone(entry[key]) if key in entry else clone(default)
    return out


def _free_uids(entries: list[dict[str, Any]], pick: Callable[[int], int]) -> list[dict[str, Any]]:
    """TavernHelper's uid collision handling: a taken or missing uid moves on quadratically; a
    missing one starts from ``pick`` (TavernHelper draws it at random)."""
    taken: set[int] = set()
    out = []
    for entry in entries:
        uid = entry.get("uid")
        index = int(uid) if isinstance(uid, int | float) and not isinstance(uid, bool) else pick(_MAX_UID)
        step = 1
        while index in taken:
            index = (index + step * step) % _MAX_UID
            step += 1
        taken.add(index)
        out.append({**entry, "uid": index})
    return out


def _book(host: ScriptHost, name: Any) -> dict[str, Any]:
    if name not in host.world_names():
        raise ScriptError(f"未能找到世界书 '{name}'")
    return host.load_world(str(name)) or {}


def get_worldbook(host: ScriptHost, name: Any) -> list[dict[str, Any]]:
    """``getWorldbook(name)``: the entries, in display order."""
    entries = _book(host, name).get("entries") or {}
    values = [e for e in (entries.values() if isinstance(entries, dict) else entries) if isinstance(e, dict)]
    values.sort(key=lambda e: (e.get("displayIndex") is None, e.get("displayIndex") or 0))
    return [to_script_entry(e) for e in values]


def write_worldbook(host: ScriptHost, name: str, entries: Any, pick: Callable[[int], int]) -> bool:
    """``createOrReplaceWorldbook``: true when the book is new."""
    if not isinstance(entries, list):
        raise ScriptError("世界书条目必须是数组")
    existing = name in host.world_names()
    if not existing:
        host.save_world(name, {"entries": {}})
    if existing or entries:
        given = _free_uids([e for e in entries if isinstance(e, dict)], pick)
        stored = [from_script_entry(entry, index) for index, entry in enumerate(given)]
        host.save_world(name, {"entries": {str(e["uid"]): e for e in stored}})
    host.changed(f"world:{name}")
    return not existing


def replace_worldbook(host: ScriptHost, name: Any, entries: Any, pick: Callable[[int], int]) -> None:
    """``replaceWorldbook``: only an existing book."""
    _book(host, name)
    write_worldbook(host, str(name), entries, pick)


def create_worldbook(host: ScriptHost, name: Any, entries: Any, pick: Callable[[int], int]) -> bool:
    """``createWorldbook``: false (and nothing written) when the name is taken."""
    if name in host.world_names():
        return False
    return write_worldbook(host, str(name), entries if entries is not None else [], pick)


__all__ = [
    "REGEXP",
    "create_worldbook",
    "from_script_entry",
    "get_worldbook",
    "replace_worldbook",
    "to_script_entry",
    "write_worldbook",
]
