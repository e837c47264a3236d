"""Where entries come from and in which order the scan sees them (ST ``getSortedEntries``)."""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import FormatError
from . import _js
from .types import Lorebook, Strategy, WorldInfoEntry

# The editor template SillyTavern 1.12.6 fills a converted card entry from (key order matters: it
# is the order of the keys in the saved book, and so of the entry hash used by timed effects).
_TEMPLATE: tuple[tuple[str, Any], ...] = (
    ("key", []),
    ("keysecondary", []),
    ("comment", ""),
    ("content", ""),
    ("constant", False),
    ("vectorized", False),
    ("selective", True),
    ("selectiveLogic", 0),
    ("addMemo", False),
    ("order", 100),
    ("position", 0),
    ("disable", False),
    ("excludeRecursion", False),
    ("preventRecursion", False),
    ("delayUntilRecursion", 0),
    ("probability", 100),
    ("useProbability", True),
    ("depth", 4),
    ("group", ""),
    ("groupOverride", False),
    ("groupWeight", 100),
    ("scanDepth", None),
    ("caseSensitive", None),
    ("matchWholeWords", None),
    ("useGroupScoring", None),
    ("automationId", ""),
    ("role", 0),
    ("sticky", None),
    ("cooldown", None),
    ("delay", None),
)


def entry_from_st(raw: Mapping[str, Any], world: str) -> WorldInfoEntry:
    """Wrap one entry object of a SillyTavern book.  Nothing is defaulted (ST's scanner doesn't)."""
    if not isinstance(raw, Mapping):
        raise FormatError("世界书条目不是对象 (a lorebook entry is not an object)", path=world)
    return WorldInfoEntry(world=world, raw=raw)


def book_from_st(name: str, data: Mapping[str, Any]) -> Lorebook:
    """A standalone book file (``{"entries": {...}}``) → :class:`Lorebook` in JS key order."""
    entries = data.get("entries") if isinstance(data, Mapping) else None
    if isinstance(entries, list):
        # Arrays iterate by index, which is what ST does if such a file reaches the scanner.
        items: Iterable[Any] = entries
    elif isinstance(entries, Mapping):
        items = [entries[k] for k in _js.object_keys(str(k) for k in entries)]
    else:
        raise FormatError("世界书缺少 entries (the lorebook has no 'entries')", path=name)
    return Lorebook(name=name, entries=tuple(entry_from_st(e, name) for e in items if isinstance(e, Mapping)))


def _order(entry: WorldInfoEntry) -> float:
    return _js.to_number(_js.get(entry.raw, "order"))


def _compare(a: WorldInfoEntry, b: WorldInfoEntry) -> int:
    # ST's ``sortFn = (a, b) => b.order - a.order``; NaN compares as "not less", like V8's TimSort.
    diff = _order(b) - _order(a)
    return -1 if diff < 0 else (1 if diff > 0 else 0)


def sort_by_order(entries: Iterable[WorldInfoEntry]) -> list[WorldInfoEntry]:
    """Stable sort by descending ``order`` (SillyTavern ``sortFn``)."""
    items = list(entries)
    if all(not math.isnan(_order(e)) for e in items):
        return sorted(items, key=lambda e: -_order(e))
    return sorted(items, key=functools.cmp_to_key(_compare))


def sort_entries(
    *,
    global_books: Sequence[Lorebook] = (),
    character_books: Sequence[Lorebook] = (),
    chat_book: Lorebook | None = None,
    strategy: Strategy | int = Strategy.CHARACTER_FIRST,
    persona_book: Lorebook | None = None,
) -> list[WorldInfoEntry]:
    """The scan order: chat book first, then (1.18) the persona's book, then global and character
    books per ``strategy``.

    The caller applies SillyTavern's de-duplication before: a character book that is also a
    global book or the chat book is skipped, and a chat book that is also global is skipped.
    """
    global_entries = [e for book in global_books for e in book.entries]
    character_entries = [e for book in character_books for e in book.entries]
    chat_entries = list(chat_book.entries) if chat_book is not None else []
    if strategy == Strategy.CHARACTER_FIRST:
        merged = sort_by_order(character_entries) + sort_by_order(global_entries)
    elif strategy == Strategy.GLOBAL_FIRST:
        merged = sort_by_order(global_entries) + sort_by_order(character_entries)
    else:  # evenly, and SillyTavern's fallback for unknown strategies
        merged = sort_by_order(global_entries + character_entries)
    persona_entries = list(persona_book.entries) if persona_book is not None else []
    return sort_by_order(chat_entries) + sort_by_order(persona_entries) + merged


def _positive_or_zero(value: Any) -> Any:
    # The editor shows ``value > 0 ? value : ''`` and stores ``Number(input)`` back: '' → 0.
    number = _js.to_number(value)
    return value if number > 0 else 0


def character_book_to_world(
    book: Mapping[str, Any], char_name: str, *, editor_resave: bool = True
) -> tuple[str, dict[str, Any]]:
    """ "Import Card Lore": an embedded ``character_book`` → ``(world name, world JSON)``.

    ``editor_resave`` reproduces SillyTavern 1.12.6 opening the new book in the World Info editor
    right after the import, whose form forces ``selective``/``addMemo``/``useProbability`` on,
    stores empty sticky/cooldown/delay as 0 and clears ``role`` outside @depth, then saves
    (oracle case 18: secondary keys of embedded entries are enforced).
    """
    entries_in = book.get("entries")
    if not isinstance(entries_in, list):
        raise FormatError("角色卡内嵌世界书缺少 entries 数组 (character_book has no entries array)")
    name = book.get("name") or f"{char_name}'s Lorebook"
    entries: dict[str, Any] = {}
    for index, item in enumerate(entries_in):
        if not isinstance(item, Mapping):
            continue
        ext = item.get("extensions")
        ext = ext if isinstance(ext, Mapping) else {}

        def x(name: str, default: Any, ext: Mapping[str, Any] = ext) -> Any:
            return _js.coalesce(_js.get(ext, name), default)

        uid = item.get("id", index)  # ST writes the index back only when undefined (null stays)
        entry: dict[str, Any] = dict(_TEMPLATE)
        entry.update(
            uid=uid,
            key=item.get("keys"),
            keysecondary=item.get("secondary_keys") or [],
            comment=item.get("comment") or "",
            content=item.get("content"),
            constant=item.get("constant") or False,
            selective=item.get("selective") or False,
            order=item.get("insertion_order"),
            position=x("position", 0 if item.get("position") == "before_char" else 1),
            excludeRecursion=x("exclude_recursion", False),
            preventRecursion=x("prevent_recursion", False),
            delayUntilRecursion=x("delay_until_recursion", False),
            disable=not _js.truthy(item.get("enabled")),
            addMemo=bool(_js.truthy(item.get("comment"))),
            displayIndex=x("display_index", index),
            probability=x("probability", 100),
            useProbability=x("useProbability", True),
            depth=x("depth", 4),
            selectiveLogic=x("selectiveLogic", 0),
            group=x("group", ""),
            groupOverride=x("group_override", False),
            groupWeight=x("group_weight", 100),
            scanDepth=x("scan_depth", None),
            caseSensitive=x("case_sensitive", None),
            matchWholeWords=x("match_whole_words", None),
            useGroupScoring=x("use_group_scoring", None),
            automationId=x("automation_id", ""),
            role=x("role", 0),
            vectorized=x("vectorized", False),
            sticky=x("sticky", None),
            cooldown=x("cooldown", None),
            delay=x("delay", None),
        )
        # Keys missing from the card stay missing (JSON.stringify drops undefined).
        if "keys" not in item:
            del entry["key"]
        if "content" not in item:
            del entry["content"]
        if "insertion_order" not in item:
            del entry["order"]
        if editor_resave:
            entry["selective"] = True
            entry["addMemo"] = True
            entry["useProbability"] = True
            if entry.get("probability") is None:
                entry["probability"] = 100
            for timed in ("sticky", "cooldown", "delay"):
                entry[timed] = _positive_or_zero(entry[timed])
            if entry.get("position") == 4:
                entry["role"] = _js.coalesce(entry.get("role"), 0)
            else:
                entry["role"] = None
        entries[_js.to_string(uid)] = entry
    original = copy.deepcopy(dict(book))
    for index, item in enumerate(original.get("entries") or []):
        if isinstance(item, dict) and "id" not in item:
            item["id"] = index  # ST writes the index back into the embedded book it keeps
    # A JS object lists integer-like keys first (ascending): that is the order ST saves.
    ordered = {key: entries[key] for key in _js.object_keys(entries)}
    return name, {"entries": ordered, "originalData": original}


def select_book_names(
    *,
    global_select: Sequence[str] = (),
    character_world: str | None = None,
    character_extra_books: Sequence[str] = (),
    chat_world: str | None = None,
) -> tuple[list[str], list[str], str | None]:
    """Which books feed the scan, with SillyTavern's de-duplication → (global, character, chat).

    ``character_world`` is the card's ``data.extensions.world``; ``character_extra_books`` the
    ``world_info.charLore`` entry of this card (``extraBooks``); ``chat_world`` is
    ``chat_metadata.world_info``.  A character book that is also global or the chat book is skipped,
    and a chat book that is also global is skipped.  Missing books are the caller's business
    (SillyTavern treats them as empty).
    """
    global_names = list(global_select)
    character: list[str] = []
    for name in ([character_world] if character_world else []) + list(character_extra_books):
        if name in character or name in global_names or name == chat_world:
            continue
        character.append(name)
    chat = chat_world if chat_world and chat_world not in global_names else None
    return global_names, character, chat


class LorebookCache:
    """Keeps :class:`Lorebook` objects alive between scans, so per-entry plans are built once.

    ``get(name, data)`` returns the same Lorebook as long as it is called with the very same
    ``data`` object (identity, not equality): reload a changed file into a new dict and the book
    is rebuilt.  Do not mutate a book dict in place after handing it to the cache.  The cache is a
    plain value owned by the caller (for example one per chat session); nothing global.
    """

    def __init__(self) -> None:
        self._books: dict[str, tuple[Mapping[str, Any], Lorebook]] = {}

    def get(self, name: str, data: Mapping[str, Any]) -> Lorebook:
        cached = self._books.get(name)
        if cached is not None and cached[0] is data:
            return cached[1]
        book = book_from_st(name, data)
        self._books[name] = (data, book)
        return book

    def forget(self, name: str) -> None:
        self._books.pop(name, None)
