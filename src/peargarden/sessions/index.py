"""A session index: what reading a session file's first bytes built, kept so that the next open reads
only the lines appended since (pure: bytes in, bytes or a session out; the store keeps the file).

A 20,000-message chat with swipes is 50,000 lines; checking each one and making its entry costs a
Python loop per line (about 200 ms of CPU).  The index keeps the result of that loop for the file's
first *size* bytes as columns (ids, parents, types, timestamps, where each entry's line is, the
active path, the header's line, the warnings) and a fingerprint of those bytes.  Opening with it makes
the entries from the columns in C (``map``), takes each entry's line from the file's bytes as before
(bodies are still decoded on first use) and reads the rest of the file as an append.

The session file stays the only source of truth: an index is used only when its own checksum, its
version, the file's device and inode, and the CRC-32 of every byte it covers all match; anything else
(another file, a file rewritten or restored, truncated, an index torn by a crash or written by an
older version) means a full read, exactly as without an index.  The bytes covered end where the file's
last non-blank line starts, so that line (maybe a torn append) and everything after it are read the
way a full read reads them: the session, warnings and torn-tail flag are the full read's.
"""

from __future__ import annotations

import json
import sys
import zlib
from array import array
from itertools import accumulate, islice, repeat
from operator import attrgetter

import msgspec

from .codec import LoadedSession, Record, _text, _value_of, apply_amend, feed_rows, split_rows
from .entries import ENTRY_TYPES, Entry
from .tree import SessionTree

#: Changes whenever the layout or the meaning of an index changes: an index of another version is
#: simply not used (and rewritten by the next full read).
INDEX_VERSION = 2
# The numbers are packed in this machine's byte order: an index from a machine of the other order
# (a data folder carried over) is not used.
_MAGIC = f"PEARGARDEN-SESSION-INDEX {sys.byteorder}\n".encode()
_KIND_CODES = {kind: code for code, kind in enumerate(ENTRY_TYPES)}
_ID, _PARENT, _TYPE, _STAMP = attrgetter("id"), attrgetter("parent_id"), attrgetter("type"), attrgetter("timestamp")


class _Index(msgspec.Struct, array_like=True, gc=False):
    """One index: the fingerprint of the bytes it covers, then the state they leave, in columns.
    Offsets are packed arrays (``array``): read back with one copy, not one object each."""

    version: int
    device: int
    inode: int
    size: int  # bytes of the session file covered, from its start
    crc: int  # zlib.crc32 of those bytes
    newlines: int  # newlines among them (the next line's number is this + 1)
    header: list[int]  # start and end of the header's line, or empty
    leaf: str | None
    warnings: list[str]
    ids: list[str]
    parents: list[str | None]
    kinds: bytes  # one byte per entry: its index in ENTRY_TYPES
    stamps: list[str]
    starts: bytes  # array("q"): where each entry's line starts and where the next line starts (a
    ends: bytes  # JSON decoder takes the CR and newline between them as the whitespace they are)
    path: list[str]  # the active path's ids, root first
    amends: bytes  # array("q"): start and end of each amend record's line, applied in order


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Index)


def read_indexed(data: bytes, identity: tuple[int, int]) -> tuple[LoadedSession, bytes | None]:
    """The full read of a session file's *data*, and an index of it (None when it cannot be stored:
    an id or a warning holding a lone surrogate, which msgpack cannot encode)."""
    raw = data.split(b"\n")
    # Where each line starts: the lengths before any CR is taken off.
    starts = list(accumulate(map((1).__add__, map(len, raw)), initial=0))
    loaded = LoadedSession({}, SessionTree(), newlines=len(raw) - 1)
    rows = split_rows(data, raw)
    record = Record(loaded.tree)
    feed_rows(loaded, rows, 1, record)
    return loaded, _encoded(record, data, identity, starts, rows)


def _encoded(
    record: Record, data: bytes, identity: tuple[int, int], starts: list[int], rows: list[bytes]
) -> bytes | None:
    # The index covers the lines before the last non-blank one, and that one too when it was read
    # whole and a newline ends it (a line that parses is the same line whatever is appended).
    state, covered = record.after, len(rows)
    if state is None or covered >= len(starts) - 1:
        state, covered = record.before, max(covered - 1, 0)
    if state is None:
        return None
    size = starts[covered]
    entries = state.entries
    rows_of = record.rows[:entries]
    tree_entries = list(islice(record.tree, entries))
    header = record.header if record.header is not None and record.header < covered else None
    index = _Index(
        version=INDEX_VERSION,
        device=identity[0],
        inode=identity[1],
        size=size,
        crc=zlib.crc32(memoryview(data)[:size]),
        newlines=covered,
        header=[] if header is None else [starts[header], starts[header] + len(rows[header])],
        leaf=state.leaf,
        warnings=state.warnings,
        ids=list(map(_ID, tree_entries)),
        parents=list(map(_PARENT, tree_entries)),
        kinds=bytes(map(_KIND_CODES.__getitem__, map(_TYPE, tree_entries))),
        stamps=list(map(_STAMP, tree_entries)),
        starts=array("q", map(starts.__getitem__, rows_of)).tobytes(),
        ends=array("q", map(starts.__getitem__, map((1).__add__, rows_of))).tobytes(),
        path=list(map(_ID, state.path)),
        amends=array(
            "q", [at for row in record.amends[: state.amends] for at in (starts[row], starts[row + 1])]
        ).tobytes(),
    )
    try:
        payload = _ENCODER.encode(index)
    except (msgspec.EncodeError, UnicodeEncodeError):
        return None
    return _MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload


def read_with_index(data: bytes, identity: tuple[int, int], blob: bytes) -> tuple[LoadedSession, int] | None:
    """The session in *data* read through the index *blob*, and how many bytes past the index were
    read; None when the index does not belong to these bytes (then read the file whole)."""
    checked = _checked(blob, data, identity)
    if checked is None:
        return None
    index, starts, ends = checked
    ids = index.ids
    entries = map(
        Entry,
        ids,
        index.parents,
        map(ENTRY_TYPES.__getitem__, index.kinds),
        index.stamps,
        repeat(None),
        repeat(data),
        starts,
        ends,
    )
    by_id = dict(zip(ids, entries, strict=True))
    try:
        path = list(map(by_id.__getitem__, index.path))
    except KeyError:
        return None
    if len(by_id) != len(ids) or (path[-1].id if path else None) != index.leaf:
        return None
    try:
        header = json.loads(_text(data[index.header[0] : index.header[1]])) if index.header else {}
    except ValueError:  # not the header's line after all
        return None
    if not isinstance(header, dict):
        return None
    tree = SessionTree()
    tree.add_loaded(by_id, index.leaf, path=path)
    amends = _unpacked(index.amends)
    for at in range(0, len(amends) - 1, 2):  # messages changed in place since they were written
        if not apply_amend(tree, _value_of(data[amends[at] : amends[at + 1]])):
            return None
    loaded = LoadedSession(header, tree, list(index.warnings), newlines=index.newlines)
    tail = data[index.size :]
    feed_rows(loaded, split_rows(tail), index.newlines + 1)
    loaded.newlines += tail.count(b"\n")
    return loaded, len(tail)


def _checked(blob: bytes, data: bytes, identity: tuple[int, int]) -> tuple[_Index, array[int], array[int]] | None:
    """The index in *blob* and its line offsets, if it is whole, of this version, consistent, and
    covers the start of *data*."""
    head = len(_MAGIC) + 4
    if not blob.startswith(_MAGIC) or len(blob) < head:
        return None
    payload = memoryview(blob)[head:]
    if zlib.crc32(payload) != int.from_bytes(blob[len(_MAGIC) : head], "big"):
        return None
    try:
        index = _DECODER.decode(payload)
        starts = _unpacked(index.starts)
        ends = _unpacked(index.ends)
        amends = _unpacked(index.amends)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError):
        return None
    size = index.size
    count = len(index.ids)
    if (
        index.version != INDEX_VERSION
        or (index.device, index.inode) != identity
        or not 0 <= size <= len(data)
        or (size and data[size - 1] != 0x0A)  # the covered bytes end with a newline
        or not count == len(index.parents) == len(index.kinds) == len(index.stamps) == len(starts) == len(ends)
        or (count and not (max(index.kinds) < len(ENTRY_TYPES) and min(starts) >= 0 and max(ends) <= size))
        or (index.header and (len(index.header) != 2 or not 0 <= index.header[0] <= index.header[1] <= size))
        or len(amends) % 2
        or (amends and not (min(amends) >= 0 and max(amends) <= size))
    ):
        return None
    if zlib.crc32(memoryview(data)[:size]) != index.crc:
        return None
    return index, starts, ends


def _unpacked(packed: bytes) -> array[int]:
    """Offsets from their bytes (``ValueError`` when they are not a whole number of them)."""
    out = array("q")
    out.frombytes(packed)
    return out
