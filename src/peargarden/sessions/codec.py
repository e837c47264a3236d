"""The session file format: JSONL lines ↔ entries (pure; the store does the I/O).

Line 1 is the header ``{"type": "session", "version": 1, "id": <chat id>, "timestamp": ..., ...}``
(extra keys such as ``card`` and ``mode`` are kept).  Then, in file order:

- entries (see :mod:`.entries`): each one moves the active leaf to itself;
- leaf records ``{"type": "leaf", "leafId": <id or null>, "timestamp": ...}``: the active leaf moved
  without a new entry (regenerate, swipe, branch).  They are not tree nodes.

Loading is forgiving the way an append-only log must be: a last line that does not parse is a torn
append from a crash and is ignored silently; a bad line in the middle is skipped with a warning; an
entry whose parent is unknown is kept as a root (with a warning) so nothing is lost.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from peargarden.formats import dumps_json

from .entries import Entry
from .tree import SessionTree

FORMAT_VERSION = 1
HEADER_TYPE = "session"
LEAF_TYPE = "leaf"


def encode(value: dict[str, Any]) -> str:
    """One line of JSON (CJK readable, no newline inside: JSON escapes control characters; lone
    surrogates from SillyTavern text escaped, so the line always encodes to UTF-8)."""
    return dumps_json(value, compact=True)


def header_line(chat_id: str, timestamp: str, **extra: Any) -> str:
    head: dict[str, Any] = {
        "type": HEADER_TYPE,
        "version": FORMAT_VERSION,
        "id": chat_id,
        "timestamp": timestamp,
    }
    head.update(extra)
    return encode(head)


def entry_line(entry: Entry) -> str:
    return encode(entry.to_json())


def leaf_line(leaf_id: str | None, timestamp: str) -> str:
    return encode({"type": LEAF_TYPE, "leafId": leaf_id, "timestamp": timestamp})


@dataclass
class LoadedSession:
    header: dict[str, Any]
    tree: SessionTree
    warnings: list[str] = field(default_factory=list)
    # True when the last line was torn (a crash in the middle of an append).
    torn_tail: bool = False


def decode(lines: Iterable[str]) -> LoadedSession:
    """Rebuild a session from its file lines (newline-terminated or not)."""
    raw = [item.rstrip("\r\n") for item in lines]
    while raw and not raw[-1].strip():
        raw.pop()
    loaded = LoadedSession({}, SessionTree())
    feed(loaded, raw, torn_tail_possible=True)
    return loaded


def _parsed(lines: list[str]) -> Iterator[tuple[int, Any]]:
    """(index, value) for each non-blank line; the value is None where the line does not parse.

    The whole batch is parsed as one JSON array first (one call into the C decoder instead of one per
    line: most of the cost of opening a long chat); a batch with any bad line is parsed line by line.
    """
    numbered = [(index, line) for index, line in enumerate(lines) if line.strip()]
    try:
        values = json.loads("[" + ",".join(line for _, line in numbered) + "]")
    except ValueError:
        values = None
    if isinstance(values, list) and len(values) == len(numbered):
        for (index, _), value in zip(numbered, values, strict=True):
            yield index, value
        return
    for index, line in numbered:
        try:
            yield index, json.loads(line)
        except ValueError:
            yield index, None


def feed(loaded: LoadedSession, lines: list[str], *, first_line: int = 1, torn_tail_possible: bool = False) -> None:
    """Apply more lines of the same file to *loaded* (lines appended by another process).

    *first_line* numbers the warnings; with *torn_tail_possible* a last line that does not parse is
    a torn append (ignored silently) rather than a damaged line.
    """
    header = loaded.header
    tree = loaded.tree
    warnings = loaded.warnings
    last = len(lines) - 1
    for index, value in _parsed(lines):
        number = first_line + index
        if not isinstance(value, dict):
            if torn_tail_possible and index == last:
                loaded.torn_tail = True
            else:
                warnings.append(f"第 {number} 行无法解析，已跳过")
            continue
        kind = value.get("type")
        if kind == HEADER_TYPE and not header:
            header.update(value)
            continue
        if kind == LEAF_TYPE:
            target = value.get("leafId")
            if target is None or (isinstance(target, str) and target in tree):
                tree.set_leaf(target)
            else:
                warnings.append(f"第 {number} 行指向不存在的条目 {target}，已忽略")
            continue
        try:
            entry = Entry.from_json(value)
        except ValueError as error:
            warnings.append(f"第 {number} 行不是会话条目（{error}），已跳过")
            continue
        if entry.id in tree:
            warnings.append(f"第 {number} 行重复的条目 id {entry.id}，已跳过")
            continue
        if entry.parent_id is not None and entry.parent_id not in tree:
            warnings.append(f"条目 {entry.id} 的父条目 {entry.parent_id} 不存在，作为根保留")
            entry = Entry(entry.id, None, entry.type, entry.timestamp, entry.body)
        tree.add(entry)
