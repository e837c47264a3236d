"""The stage's view of lorebook entries: one normalised shape for every book form.

SillyTavern keeps world info in two shapes: a standalone book (``entries`` is an object keyed by uid,
fields ``key``/``keysecondary``/``disable``/``order``) and a card's embedded ``character_book``
(``entries`` is an array, fields ``keys``/``secondary_keys``/``enabled``/``insertion_order``).  The
stage reads both into :class:`LoreEntry` (spec §8.1).

An entry's identity for the user is its *fingerprint* (first 12 hex digits of md5 of the trimmed
content), not its uid: books are merged from several files and uids collide.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from peargarden.formats import replace_lone_surrogates

__all__ = [
    "LoreEntry",
    "entries_from_book",
    "fingerprint",
    "merge_books",
]


def fingerprint(content: str) -> str:
    """First 12 hex digits of md5 of the trimmed content (Liyuan's ``disabledLore`` identity).

    Node encodes a lone surrogate as U+FFFD's bytes when it hashes a string; so do we."""
    return hashlib.md5(replace_lone_surrogates(content.strip()).encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class LoreEntry:
    uid: int
    keys: tuple[str, ...]
    content: str
    comment: str = ""
    secondary_keys: tuple[str, ...] = ()
    constant: bool = False
    enabled: bool = True
    selective: bool = False
    order: int = 100
    book: str = ""  # display name of the book it came from
    overlay: bool = False  # written by the model into the card's supplement book
    fp: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.fp:
            object.__setattr__(self, "fp", fingerprint(self.content))

    @property
    def title(self) -> str:
        """The comment, else the first non-empty key, else ``""`` (such entries get no title)."""
        if self.comment.strip():
            return self.comment.strip()
        for key in self.keys:
            if key.strip():
                return key.strip()
        return ""

    @cached_property
    def lowered(self) -> tuple[tuple[str, ...], str, str]:
        """(all keys, comment, content) lower-cased once, for repeated searches."""
        keys = tuple(k.strip().lower() for k in (*self.keys, *self.secondary_keys) if k.strip())
        return keys, self.comment.strip().lower(), self.content.lower()

    @property
    def green(self) -> bool:
        """Keyword-activated: enabled, not constant, at least one key."""
        return self.enabled and not self.constant and any(k.strip() for k in self.keys)

    @property
    def blue(self) -> bool:
        return self.enabled and self.constant


def _str_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list | tuple):
        return tuple(str(item) for item in value if isinstance(item, str | int | float) and str(item).strip())
    return ()


def _int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return default
    return default


def _raw_entries(book: Mapping[str, Any]) -> list[tuple[Any, Mapping[str, Any]]]:
    entries = book.get("entries")
    if isinstance(entries, Mapping):
        return [(key, value) for key, value in entries.items() if isinstance(value, Mapping)]
    if isinstance(entries, list):
        return [(index, value) for index, value in enumerate(entries) if isinstance(value, Mapping)]
    return []


def entries_from_book(book: Mapping[str, Any], name: str = "", *, overlay: bool = False) -> list[LoreEntry]:
    """Normalise a standalone or embedded book (spec §8.1).  Entries without content are dropped."""
    out: list[LoreEntry] = []
    for index, (slot, raw) in enumerate(_raw_entries(book)):
        content = str(raw.get("content") or "").replace("\r\n", "\n")
        if not content.strip():
            continue
        uid = _int(raw.get("uid"), _int(raw.get("id"), _int(slot, index)))
        keys = _str_list(raw.get("key") if "key" in raw else raw.get("keys"))
        secondary = _str_list(raw.get("keysecondary") if "keysecondary" in raw else raw.get("secondary_keys"))
        comment = raw.get("comment")
        if not isinstance(comment, str) or not comment.strip():
            comment = raw.get("name") if isinstance(raw.get("name"), str) else ""
        enabled = not (raw.get("enabled") is False or raw.get("disable") is True)
        order_value = raw.get("insertion_order") if "insertion_order" in raw else raw.get("order")
        out.append(
            LoreEntry(
                uid=uid,
                keys=keys,
                content=content,
                comment=str(comment or ""),
                secondary_keys=secondary,
                constant=raw.get("constant") is True,
                enabled=enabled,
                selective=raw.get("selective") is True,
                order=_int(order_value, 100),
                book=name,
                overlay=overlay,
            )
        )
    return out


def merge_books(books: Sequence[Iterable[LoreEntry]], disabled: Iterable[str] = ()) -> list[LoreEntry]:
    """Mounted books in list order (the overlay last): de-duplicated by trimmed content, first wins.

    Fingerprints in *disabled* (the card's ``disabledLore``) switch entries off for this user.
    """
    switched_off = set(disabled)
    seen: set[str] = set()
    merged: list[LoreEntry] = []
    for book in books:
        for entry in book:
            if entry.fp in seen:
                continue
            seen.add(entry.fp)
            if entry.fp in switched_off and entry.enabled:
                entry = replace(entry, enabled=False)
            merged.append(entry)
    return merged
