"""The session file format: JSONL lines ↔ entries (pure; the store does the I/O).

Line 1 is the header ``{"type": "session", "version": 1, "id": <chat id>, "timestamp": ..., ...}``
(extra keys such as ``card`` and ``mode`` are kept).  Then, in file order:

- entries (see :mod:`.entries`): each one moves the active leaf to itself;
- leaf records ``{"type": "leaf", "leafId": <id or null>, "timestamp": ...}``: the active leaf moved
  without a new entry (regenerate, swipe, branch).  They are not tree nodes.
- amend records ``{"type": "amend", "targetId": <id>, "message": {<fields>}, "timestamp": ...}``: an
  earlier message changed in place (continue extends a reply, a message is hidden): the fields given
  replace the message's (``null`` removes one).  Not tree nodes either; the line of the message itself
  is never rewritten.  A file without them reads as before.

Loading is forgiving the way an append-only log must be: a last line that does not parse is a torn
append (a crash, a full disk) and is skipped with a warning that says so; a bad line in the middle is
skipped with a warning; an entry whose parent is unknown is kept as a root (with a warning) so nothing
is lost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any

import msgspec

from peargarden.formats import dumps_json

from .entries import ENTRY_TYPES, Entry, check_head
from .tree import SessionTree

FORMAT_VERSION = 1
HEADER_TYPE = "session"
LEAF_TYPE = "leaf"
AMEND_TYPE = "amend"


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


def amend_line(target_id: str, changes: dict[str, Any], timestamp: str) -> str:
    return encode({"type": AMEND_TYPE, "targetId": target_id, "message": changes, "timestamp": timestamp})


class LoadedSession(msgspec.Struct):
    header: dict[str, Any]
    tree: SessionTree
    warnings: list[str] = msgspec.field(default_factory=list)
    # True when the last line was torn (a crash in the middle of an append).
    torn_tail: bool = False
    # How many newlines the bytes read held (set by :func:`decode_bytes`).
    newlines: int = 0


def decode(lines: Iterable[str | bytes]) -> LoadedSession:
    """Rebuild a session from its file lines (newline-terminated or not)."""
    raw = [_as_bytes(item).rstrip(b"\r\n") for item in lines]
    while raw and _blank(raw[-1]):
        raw.pop()
    loaded = LoadedSession({}, SessionTree())
    _feed(loaded, raw, 1, True)
    return loaded


def decode_bytes(data: bytes) -> LoadedSession:
    """Rebuild a session from the bytes of its file."""
    rows = split_rows(data)
    loaded = LoadedSession({}, SessionTree(), newlines=data.count(b"\n"))
    feed_rows(loaded, rows, 1)
    return loaded


def split_rows(data: bytes, raw: list[bytes] | None = None) -> list[bytes]:
    """The lines of *data* (a CR before a newline dropped), without the blank lines at the end;
    *raw* is ``data.split(b"\\n")`` when the caller has it already (the list is then changed)."""
    if raw is None:
        raw = data.split(b"\n")
    if b"\r" in data:
        raw = [line.rstrip(b"\r") for line in raw]
    while raw and _blank(raw[-1]):
        raw.pop()
    return raw


def feed_rows(loaded: LoadedSession, rows: list[bytes], first_line: int, record: Record | None = None) -> None:
    """Apply *rows* (from :func:`split_rows`: the file's last lines, up to its last non-blank one) to
    *loaded*; *first_line* is the number of the first one.

    The last row, which may be a torn append, is fed on its own: everything before it means the same
    whatever follows, and so does the last row when it is not torn.  *record* notes both states for a
    session index (see :mod:`.index`).  The rest of the batch never falls back to line-by-line
    reading because of a torn end.
    """
    if len(rows) > 1:
        _feed(loaded, rows[:-1], first_line, False, record)
    if record is not None:
        record.before = record.state(loaded)
    if rows:
        _feed(loaded, rows[-1:], first_line + len(rows) - 1, True, record, len(rows) - 1)
        if record is not None and not loaded.torn_tail:
            record.after = record.state(loaded)


class ReadState(msgspec.Struct):
    """The state a run of lines left: how many entries (the first ones of the tree), the leaf, the
    active path and the warnings."""

    entries: int
    leaf: str | None
    path: list[Entry]
    warnings: list[str]
    amends: int = 0  # how many amend records had been applied


class Record:
    """What :func:`feed_rows` noted for a session index: the row of each entry it added (in the
    order they went into the tree) and of the header, and the state before the last row and, when
    that row was not torn, after it."""

    def __init__(self, tree: SessionTree) -> None:
        self.tree = tree  # the tree being read, empty at first
        self.rows: list[int] = []
        self.amends: list[int] = []  # the rows of the amend records applied, in order
        self.header: int | None = None
        self.before: ReadState | None = None
        self.after: ReadState | None = None

    def state(self, loaded: LoadedSession) -> ReadState:
        tree = loaded.tree
        return ReadState(len(tree), tree.leaf, tree.path(), list(loaded.warnings), len(self.amends))


def _as_bytes(line: str | bytes) -> bytes:
    # Our lines escape lone surrogates; a str from elsewhere must not fail here either.
    return line if isinstance(line, bytes) else line.encode("utf-8", errors="surrogatepass")


def _text(line: bytes) -> str:
    """The line as text, as the whole file used to be decoded (invalid UTF-8 replaced)."""
    return line.decode("utf-8", errors="replace")


def _blank(line: bytes) -> bool:
    # Blank as text: Unicode spaces (U+3000 …) count, as when lines were decoded before the check.
    return not line.strip() or not _text(line).strip()


class _Head(msgspec.Struct, gc=False):
    """The fields of a line the tree needs; the rest of the line is checked but not decoded."""

    id: Any = None
    parentId: Any = None
    type: Any = None
    timestamp: Any = None
    leafId: Any = None
    targetId: Any = None


_HEADS = msgspec.json.Decoder(list[_Head])
_HEAD = msgspec.json.Decoder(_Head)


def _array(lines: list[bytes]) -> bytes:
    """The lines as one JSON array, copied once (an 18 MB file: the copies cost as much as the decoding)."""
    if len(lines) < 2:
        return b"[" + b"".join(lines) + b"]"
    return b",".join([b"[" + lines[0], *lines[1:-1], lines[-1] + b"]"])


def _parsed(lines: list[bytes]) -> tuple[list[int], list[_Head | None], dict[int, dict[str, Any]]]:
    """For the non-blank lines: their indexes, their heads (None where a line is not a JSON object)
    and, by index, the whole decoded object of the lines that were decoded whole (the other
    entries' bodies are decoded from their lines on first use).

    The whole batch is checked as one JSON array first by a decoder that builds only the few fields
    of :class:`_Head` and skips the rest (one call into C: most of the cost of opening a long chat
    was decoding every message's text).  A batch with any line that decoder refuses is done line by
    line, and a line it refuses is decoded as before by :mod:`json` (which takes ``NaN``, lone
    surrogate escapes and Unicode-blank lines that msgspec does not): the same lines are kept, with
    the same values, either way.
    """
    # Empty lines are left out of the batch; a line of spaces makes the batch fail (and is skipped
    # line by line below).
    if all(lines):
        indexes = list(range(len(lines)))
        kept_lines = lines
    else:
        indexes = [index for index, line in enumerate(lines) if line]
        kept_lines = [lines[index] for index in indexes]
    try:  # invalid UTF-8 (a torn multi-byte character) is a UnicodeDecodeError from msgspec
        heads: list[_Head | None] = list(_HEADS.decode(_array(kept_lines)))
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        heads = []
    if len(heads) == len(indexes):
        return indexes, heads, {}
    kept: list[int] = []
    heads = []
    values: dict[int, dict[str, Any]] = {}
    for index in indexes:
        line = lines[index]
        if not line.strip():
            continue
        try:
            heads.append(_HEAD.decode(line))
            kept.append(index)
            continue
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
            pass
        text = _text(line)
        if not text.strip():
            continue
        kept.append(index)
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            heads.append(None)
            continue
        heads.append(_Head(value.get("id"), value.get("parentId"), value.get("type"), value.get("timestamp")))
        values[index] = value
    return kept, heads, values


def feed(
    loaded: LoadedSession, lines: Sequence[str | bytes], *, first_line: int = 1, torn_tail_possible: bool = False
) -> None:
    """Apply more lines of the same file to *loaded* (lines appended by another process).

    *first_line* numbers the warnings; with *torn_tail_possible* a last line that does not parse is
    a torn append (skipped with its own warning) rather than a damaged line.
    """
    _feed(loaded, [_as_bytes(line) for line in lines], first_line, torn_tail_possible)


def _feed(
    loaded: LoadedSession,
    rows: list[bytes],
    first_line: int,
    torn_tail_possible: bool,
    record: Record | None = None,
    row_offset: int = 0,
) -> None:
    # One pass over up to tens of thousands of lines: the common entry (a line msgspec decoded, with
    # a string id and parent) is checked and made inline, and the new entries go into the tree in
    # one call at the end (:meth:`SessionTree.add_loaded`); every other line takes the general way.
    header = loaded.header
    tree = loaded.tree
    known: Container[str] = tree.ids() if len(tree) else ()  # entries already in the tree
    fresh: dict[str, Entry] = {}  # this batch's entries, in file order, not in the tree yet
    leaf: str | None = tree.leaf
    warnings = loaded.warnings
    last = len(rows) - 1
    indexes, heads, values = _parsed(rows)
    entry_types = _ENTRY_TYPES
    noted: Callable[[int], None] | None = None
    if record is not None:
        keep = record.rows.append
        noted = keep if not row_offset else lambda index: keep(index + row_offset)
    for index, head in zip(indexes, heads, strict=True):
        if head is not None:  # the common line first: an entry with new string ids, parent known
            kind = head.type
            entry_id = head.id
            parent = head.parentId
            if (
                kind in entry_types
                and type(entry_id) is str
                and entry_id
                and (parent is None or (type(parent) is str and (parent in fresh or parent in known)))
                and entry_id not in fresh
                and entry_id not in known
                and not (values and index in values)
            ):
                timestamp = head.timestamp
                stamp = timestamp if type(timestamp) is str else str(timestamp or "")
                fresh[entry_id] = Entry(entry_id, parent, kind, stamp, None, rows[index])
                leaf = entry_id
                if noted is not None:
                    noted(index)
                continue
            if kind == LEAF_TYPE and not values:  # a swipe or branch moved the leaf
                target = head.leafId
                if target is None or (type(target) is str and (target in fresh or target in known)):
                    leaf = target
                    continue
        if head is None:
            if torn_tail_possible and index == last:
                # A crash or a full disk in the middle of an append: skipped, and said (the next
                # append starts a new line, and from then on it reads as a damaged line).
                loaded.torn_tail = True
                warnings.append(f"第 {first_line + index} 行不完整（写到一半中断了：崩溃或磁盘已满），已跳过")
            else:
                warnings.append(f"第 {first_line + index} 行无法解析，已跳过")
            continue
        kind = head.type
        entry_id = head.id
        parent = head.parentId
        value = values.get(index) if values else None
        if (
            kind in entry_types
            and value is None
            and type(entry_id) is str
            and entry_id
            and (parent is None or type(parent) is str)
        ):
            timestamp = head.timestamp
            stamp = timestamp if type(timestamp) is str else str(timestamp or "")
            entry = Entry(entry_id, parent, kind, stamp, None, rows[index])
        elif kind == HEADER_TYPE and not header:
            header.update(value if value is not None else json.loads(_text(rows[index])))
            if record is not None:
                record.header = index + row_offset
            continue
        elif kind == LEAF_TYPE:
            target = value.get("leafId") if value is not None else head.leafId
            if target is None or (isinstance(target, str) and (target in fresh or target in known)):
                leaf = target
            else:
                warnings.append(f"第 {first_line + index} 行指向不存在的条目 {target}，已忽略")
            continue
        elif kind == AMEND_TYPE:
            if fresh:  # the entries read so far go into the tree first: the amend may change one
                tree.add_loaded(fresh, leaf)
                fresh = {}
                known = tree.ids()
            if apply_amend(tree, value if value is not None else _value_of(rows[index])):
                if record is not None:
                    record.amends.append(index + row_offset)
            else:
                warnings.append(f"第 {first_line + index} 行的改写指向不存在的消息，已忽略")
            continue
        else:
            try:
                if value is not None:
                    entry = Entry.from_json(value)
                else:
                    entry_id, parent, entry_type = check_head(entry_id, parent, kind)
                    entry = Entry(entry_id, parent, entry_type, str(head.timestamp or ""), None, rows[index])
            except ValueError as error:
                warnings.append(f"第 {first_line + index} 行不是会话条目（{error}），已跳过")
                continue
        entry_id = entry.id
        if entry_id in fresh or entry_id in known:
            warnings.append(f"第 {first_line + index} 行重复的条目 id {entry_id}，已跳过")
            continue
        parent = entry.parent_id
        if parent is not None and parent not in fresh and parent not in known:
            warnings.append(f"条目 {entry_id} 的父条目 {parent} 不存在，作为根保留")
            entry = entry.with_parent(None)
        fresh[entry_id] = entry
        leaf = entry_id
        if noted is not None:
            noted(index)
    tree.add_loaded(fresh, leaf)


_ENTRY_TYPES = frozenset(ENTRY_TYPES)


def _value_of(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(_text(line))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def apply_amend(tree: SessionTree, value: dict[str, Any] | None) -> bool:
    """Apply a decoded amend record to *tree*; False when it names no message of the tree."""
    if value is None:
        return False
    target, changes = value.get("targetId"), value.get("message")
    if not isinstance(target, str) or target not in tree or not isinstance(changes, dict):
        return False
    if tree.get(target).type != "message":
        return False
    tree.amend(target, changes)
    return True
