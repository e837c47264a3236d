"""Edits of a standalone SillyTavern lorebook the way SillyTavern's world-info editor stores them.

Pure functions over the book's JSON (``{"entries": {"<uid>": entry}, "originalData"?: …}``); each
returns a new book and leaves the argument alone.  Per field, a change is stored in the type and
encoding the editor writes (numbers as numbers, ``null`` for "use the global setting", the role only
for "at depth", a clamped probability, a trimmed inclusion group, ``true`` or a level for "delay until
recursion"), and mirrored into ``originalData`` (the card book the file was imported from) under the
names the card format uses, as the editor does for entries it can find there by ``uid``.

Fields nobody changed stay exactly as they were — also the ones the editor would quietly rewrite when
it merely displays an entry (a missing ``order`` becomes 0 there, an empty ``sticky`` becomes 0):
those rewrites change what a book does, so we leave them out.  Unknown fields (newer SillyTavern
versions, extensions) are never touched, and keys keep their order in the file.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats._values import flag_value, text_value

from ._common import JsonObject
from .lorebooks import new_entry, next_uid

# ``position``: before / after the character, Author's Note top / bottom, at depth, examples top /
# bottom, outlet (spec §5.1).
POSITIONS = (0, 1, 2, 3, 4, 5, 6, 7)
AT_DEPTH = 4
ROLES = (0, 1, 2)  # system, user, assistant (at depth only)
LOGICS = (0, 1, 2, 3)  # AND ANY, NOT ALL, NOT ANY, AND ALL
STRATEGIES = ("constant", "normal", "vectorized")
TRIGGERS = ("normal", "continue", "impersonate", "swipe", "regenerate", "quiet")
MAX_SCAN_DEPTH = 1000

# Standalone field → where the editor mirrors it in ``originalData`` (a card book's entry).
_ORIGINAL_PATHS: dict[str, str] = {
    "key": "keys",
    "keysecondary": "secondary_keys",
    "comment": "comment",
    "content": "content",
    "constant": "constant",
    "selective": "selective",
    "order": "insertion_order",
    "disable": "enabled",  # stored inverted
    "position": "position",  # stored as before_char / after_char, plus extensions.position
    "role": "extensions.role",
    "depth": "extensions.depth",
    "selectiveLogic": "selectiveLogic",
    "probability": "extensions.probability",
    "group": "extensions.group",
    "groupOverride": "extensions.group_override",
    "groupWeight": "extensions.group_weight",
    "useGroupScoring": "extensions.use_group_scoring",
    "scanDepth": "extensions.scan_depth",
    "caseSensitive": "extensions.case_sensitive",
    "matchWholeWords": "extensions.match_whole_words",
    "excludeRecursion": "extensions.exclude_recursion",
    "preventRecursion": "extensions.prevent_recursion",
    "delayUntilRecursion": "extensions.delay_until_recursion",
    "sticky": "extensions.sticky",
    "cooldown": "extensions.cooldown",
    "delay": "extensions.delay",
    "vectorized": "extensions.vectorized",
    "automationId": "extensions.automation_id",
    "outletName": "extensions.outlet_name",
    "ignoreBudget": "extensions.ignore_budget",
    "triggers": "extensions.triggers",
    "matchPersonaDescription": "extensions.match_persona_description",
    "matchCharacterDescription": "extensions.match_character_description",
    "matchCharacterPersonality": "extensions.match_character_personality",
    "matchCharacterDepthPrompt": "extensions.match_character_depth_prompt",
    "matchScenario": "extensions.match_scenario",
    "matchCreatorNotes": "extensions.match_creator_notes",
}


def split_keys(text: str) -> list[str]:
    """Keys typed as one line, split the way the editor's plain-text key box splits them: at ASCII
    commas, except inside a ``/regex/flags`` key; each key trimmed, empty ones dropped.  A Chinese
    comma (，) does not split — SillyTavern would keep ``甲，乙`` as one key, and so do we."""
    keys: list[str] = []
    current = ""
    in_regex = False
    i = 0
    while i < len(text):
        char = text[i]
        if char == "/" and not in_regex and not current.strip():
            in_regex = True
        elif char == "/" and in_regex and text[i - 1] != "\\":
            # The regex ends here; its flags follow up to the next comma.
            in_regex = False
        elif char == "," and not in_regex:
            keys.append(current)
            current = ""
            i += 1
            continue
        current += char
        i += 1
    keys.append(current)
    return [key.strip() for key in keys if key.strip()]


def entry_fingerprint(entry: Mapping[str, Any]) -> str:
    """Short hash of an entry as stored; an edit names the version it was made on."""
    text = json.dumps(entry, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# ----- value rules, one per kind of field ----------------------------------------------------------


def _number(field: str, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadInput(f"{field} 需要一个数字，收到 {value!r}（a number is required）")
    return int(value) if float(value).is_integer() else value


def _integer(field: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    number = _number(field, value)
    if not float(number).is_integer():
        raise BadInput(f"{field} 需要整数，收到 {value!r}（an integer is required）")
    if (low is not None and number < low) or (high is not None and number > high):
        span = f"{low}–{high}" if high is not None else f"≥ {low}"
        raise BadInput(f"{field} 应在 {span} 之间，收到 {value!r}（out of range）")
    return int(number)


def _keys(field: str, value: Any) -> list[str]:
    if isinstance(value, str):
        return split_keys(value)
    if isinstance(value, list) and all(isinstance(k, str) for k in value):
        return [k.strip() for k in value if k.strip()]
    raise BadInput(f"{field} 需要关键词列表或逗号分隔的文字，收到 {value!r}")


def _tristate(field: str, value: Any) -> bool | None:
    """``null`` = follow the global setting (the editor's "Use global" choice)."""
    if value is None or isinstance(value, bool):
        return value
    raise BadInput(f"{field} 只能是 true、false 或 null（跟随全局），收到 {value!r}")


def _optional_count(field: str, value: Any) -> int | None:
    """Timed effects: a number of messages, or ``null`` for none."""
    return None if value is None else _integer(field, value, 0)


def _scan_depth(field: str, value: Any) -> int | None:
    return None if value is None else _integer(field, value, 0, MAX_SCAN_DEPTH)


def _choice(options: tuple[Any, ...]) -> Callable[[str, Any], Any]:
    def check(field: str, value: Any) -> Any:
        if isinstance(value, bool) or value not in options:
            raise BadInput(f"{field} 只能是 {' / '.join(map(str, options))}，收到 {value!r}")
        return value

    return check


def _probability(field: str, value: Any) -> int | float | None:
    # The editor clamps to 0–100 rather than refusing.
    return None if value is None else min(100, max(0, _number(field, value)))


def _group_weight(field: str, value: Any) -> int | float:
    weight = abs(_number(field, value))
    if weight == 0:
        raise BadInput(f"{field} 不能是 0（a weight must be positive）")
    return weight


def _delay_until_recursion(field: str, value: Any) -> bool | int:
    """``false`` (off), ``true`` (on, level 1) or a recursion level ≥ 1."""
    if isinstance(value, bool):
        return value
    return _integer(field, value, 1)


def _triggers(field: str, value: Any) -> list[str]:
    if not isinstance(value, list) or any(t not in TRIGGERS for t in value):
        raise BadInput(f"{field} 只能列出 {' / '.join(TRIGGERS)}，收到 {value!r}")
    return list(dict.fromkeys(value))


_RULES: dict[str, Callable[[str, Any], Any]] = {
    "key": _keys,
    "keysecondary": _keys,
    "comment": text_value,
    "content": text_value,
    "constant": flag_value,
    "vectorized": flag_value,
    "selective": flag_value,
    "selectiveLogic": _choice(LOGICS),
    "disable": flag_value,
    "order": _number,
    "position": _choice(POSITIONS),
    "depth": lambda f, v: _integer(f, v, 0),
    "role": _choice(ROLES),
    "outletName": text_value,
    "probability": _probability,
    "useProbability": flag_value,
    "group": lambda f, v: text_value(f, v).strip(),
    "groupOverride": flag_value,
    "groupWeight": _group_weight,
    "useGroupScoring": _tristate,
    "scanDepth": _scan_depth,
    "caseSensitive": _tristate,
    "matchWholeWords": _tristate,
    "excludeRecursion": flag_value,
    "preventRecursion": flag_value,
    "delayUntilRecursion": _delay_until_recursion,
    "sticky": _optional_count,
    "cooldown": _optional_count,
    "delay": _optional_count,
    "automationId": text_value,
    "ignoreBudget": flag_value,
    "triggers": _triggers,
    "matchPersonaDescription": flag_value,
    "matchCharacterDescription": flag_value,
    "matchCharacterPersonality": flag_value,
    "matchCharacterDepthPrompt": flag_value,
    "matchScenario": flag_value,
    "matchCreatorNotes": flag_value,
    "addMemo": flag_value,
}
EDITABLE_FIELDS = frozenset(_RULES) | {"strategy"}


def checked_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """*changes* in stored form; a field the editor does not have, or a bad value, is refused."""
    unknown = sorted(set(changes) - EDITABLE_FIELDS)
    if unknown:
        raise BadInput(f"世界书编辑器没有这些字段：{', '.join(unknown)}（unknown fields）")
    out: dict[str, Any] = {}
    for field, value in changes.items():
        if field == "strategy":
            if value not in STRATEGIES:
                raise BadInput(f"strategy 只能是 {' / '.join(STRATEGIES)}，收到 {value!r}")
            # The editor's one selector for blue / green / vector.
            out["constant"] = value == "constant"
            out["vectorized"] = value == "vectorized"
        else:
            out[field] = _RULES[field](field, value)
    return out


def _coupled(entry: Mapping[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The fields the editor changes together with the one the user changed."""
    out = dict(changes)
    position = out.get("position", entry.get("position"))
    if "position" in changes or "role" in changes:
        # The role is kept only for "at depth" (the option carries it); elsewhere it is null.
        if position == AT_DEPTH:
            role = out.get("role", entry.get("role"))
            out["role"] = role if role in ROLES else 0
        else:
            out["role"] = None
    if "useProbability" in changes:
        if not changes["useProbability"]:
            out["probability"] = None
        elif out.get("probability", entry.get("probability")) is None:
            out["probability"] = 100
    return out


def _entries(book: Mapping[str, Any]) -> dict[str, Any]:
    entries = book.get("entries")
    if not isinstance(entries, dict):
        raise BadInput("这本世界书不是 SillyTavern 的独立格式（entries 不是对象），无法编辑")
    return entries


def _slot(book: Mapping[str, Any], uid: int | str) -> str:
    entries = _entries(book)
    key = str(uid)
    if not isinstance(entries.get(key), dict):
        raise NotFound(f"世界书里没有 uid 为 {uid} 的条目（no such entry）")
    return key


def _set_path(target: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        child = target.get(part)
        if not isinstance(child, dict):
            child = target[part] = {}
        target = child
    target[last] = copy.deepcopy(value)


def _mirror(book: dict[str, Any], uid: Any, changes: Mapping[str, Any]) -> None:
    original = book.get("originalData")
    if not isinstance(original, dict) or not isinstance(original.get("entries"), list):
        return
    found = next((e for e in original["entries"] if isinstance(e, dict) and e.get("uid") == uid), None)
    if found is None:
        return
    for field, value in changes.items():
        path = _ORIGINAL_PATHS.get(field)
        if path is None:
            continue
        if field == "disable":
            value = not value
        elif field == "position":
            _set_path(found, "extensions.position", value)
            value = "before_char" if value == 0 else "after_char"
        _set_path(found, path, value)


def update_entry(book: Mapping[str, Any], uid: int | str, changes: Mapping[str, Any],
                 expect: str | None = None) -> JsonObject:  # fmt: skip
    """The book with entry *uid* changed; *expect* (a fingerprint) guards against a stale page."""
    out = copy.deepcopy(dict(book))
    key = _slot(out, uid)
    entry = out["entries"][key]
    if expect is not None and entry_fingerprint(entry) != expect:
        raise ConflictError("这个条目在别处被改过，请刷新后再改（the entry changed）")
    stored = _coupled(entry, checked_changes(changes))
    for field, value in stored.items():
        entry[field] = value
    _mirror(out, entry.get("uid", uid), stored)
    return out


def add_entry(book: Mapping[str, Any], fields: Mapping[str, Any] | None = None, *,
              uid_start: int = 0) -> tuple[JsonObject, int]:  # fmt: skip
    """The book with a new entry (the editor's template, the smallest free uid ≥ *uid_start*) and
    that uid.  SillyTavern starts at 0; a card's supplement book starts higher, so its uids never meet
    those of an imported book."""
    out = copy.deepcopy(dict(book))
    used = {str(k) for k in _entries(out)}
    uid = max(next_uid(out), uid_start)
    while str(uid) in used:
        uid += 1
    out["entries"][str(uid)] = new_entry(uid)
    if fields:
        out = update_entry(out, uid, fields)
    return out, uid


def delete_entry(book: Mapping[str, Any], uid: int | str) -> JsonObject:
    """The book without entry *uid* (and without its card-book twin in ``originalData``)."""
    out = copy.deepcopy(dict(book))
    key = _slot(out, uid)
    removed = out["entries"].pop(key)
    original = out.get("originalData")
    if isinstance(original, dict) and isinstance(original.get("entries"), list):
        target = str(removed.get("uid", uid))
        kept = [e for e in original["entries"] if not (isinstance(e, dict) and str(e.get("uid")) == target)]
        original["entries"] = kept
    return out
