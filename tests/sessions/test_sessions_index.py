"""A session index gives exactly what reading the file whole gives (entries, parents, leaf, active
path, children, warnings, torn tail, header, line count), on files of every shape and after any bytes
appended; an index that does not belong to the bytes (another file, a file rewritten, truncated or
replaced, an index torn, foreign or of another version) is refused, never half used."""

from __future__ import annotations

import sys
import zlib
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from kit.session_files import STAMP, drawn, file_lines, long_chat, meaning, same
from peargarden.sessions import decode_bytes, entry_line, header_line, message_entry
from peargarden.sessions.codec import LoadedSession
from peargarden.sessions.index import read_indexed, read_with_index

FILE = (2049, 131077)  # (device, inode) of the file the index was made from


def assert_same_read(got: LoadedSession, data: bytes) -> None:
    """*got* means what the full read of *data* means, down to the drawn tree and the line count."""
    whole = decode_bytes(data)
    assert same(meaning(got), meaning(whole))
    assert [e.id for e in got.tree.path()] == [e.id for e in whole.tree.path()]
    assert drawn(got.tree) == drawn(whole.tree)
    assert got.newlines == whole.newlines == data.count(b"\n")


ENDS = st.sampled_from([b"\n", b"", b"\r\n", b"\n\n", b"\n\xe3\x80\x80\n"])


@settings(max_examples=examples(200), deadline=None)
@given(first=file_lines(), end=ENDS, appended=file_lines(), glue=st.sampled_from([b"", b"\n", b"\r\n"]))
def test_an_index_reads_what_the_full_read_reads(
    first: list[bytes], end: bytes, appended: list[bytes], glue: bytes
) -> None:
    data = b"\n".join(first) + end
    loaded, blob = read_indexed(data, FILE)
    assert_same_read(loaded, data)
    if blob is None:  # an id or a warning with a lone surrogate: nothing stored, nothing wrong
        return
    found = read_with_index(data, FILE, blob)
    assert found is not None
    assert_same_read(found[0], data)
    # Whatever is appended later (another process's lines, a torn line continued or left): the index
    # still fits the file's first bytes, and the whole reads as the full read of the longer file.
    longer = data + glue + b"\n".join(appended[1:])
    found = read_with_index(longer, FILE, blob)
    assert found is not None
    assert_same_read(found[0], longer)
    assert found[1] == len(longer) - len(data) + _uncovered(data, blob)


def _uncovered(data: bytes, blob: bytes) -> int:
    """How many of *data*'s bytes the index leaves to be read as a tail."""
    found = read_with_index(data, FILE, blob)
    assert found is not None
    return found[1]


@pytest.mark.parametrize("crlf", [False, True])
def test_a_long_chat_through_its_index_is_the_full_read_with_bodies_decoded_on_use(crlf: bool) -> None:
    data = long_chat(3000, crlf=crlf)
    _, blob = read_indexed(data, FILE)
    assert blob is not None
    found = read_with_index(data, FILE, blob)
    assert found is not None and found[1] == 0  # the last line is whole: nothing left to read
    got = found[0]
    entries = list(got.tree)
    assert all(e._body is None for e in entries)  # nothing decoded yet
    path = got.tree.path()
    assert [e.message["content"] for e in path[-2:]] == ["第2998句·其1\ud800", "掌柜（2999）"]
    assert sum(e._body is not None for e in entries) == 2
    assert_same_read(got, data)


def test_a_torn_last_line_is_left_out_of_the_index_and_read_as_the_full_read_reads_it() -> None:
    data = long_chat(40)
    torn = data + entry_line(message_entry("ffffffff", None, STAMP, {"role": "user", "content": "半句"})).encode()[:25]
    loaded, blob = read_indexed(torn, FILE)
    assert loaded.torn_tail and blob is not None
    found = read_with_index(torn, FILE, blob)
    assert found is not None and found[0].torn_tail and found[1] == 25
    # The crash is followed by a good append (which starts a new line): the torn line is a damaged
    # line in the middle now, with its warning, as in a full read.
    good = entry_line(message_entry("eeeeeeee", None, STAMP, {"role": "user", "content": "又来"}))
    later = torn + b"\n" + good.encode()
    found = read_with_index(later, FILE, blob)
    assert found is not None
    assert_same_read(found[0], later)
    torn_line = torn.count(b"\n") + 1
    assert found[0].warnings == [f"第 {torn_line} 行无法解析，已跳过"]


def _payload(blob: bytes) -> tuple[bytes, list[Any]]:
    """The index's head (magic) and its fields, decoded as plain msgpack by the test itself."""
    head = blob.index(b"\n") + 1
    return blob[:head], msgspec.msgpack.decode(blob[head + 4 :])


def _packed(head: bytes, fields: list[Any]) -> bytes:
    payload = msgspec.msgpack.encode(fields)
    return head + zlib.crc32(payload).to_bytes(4, "big") + payload


def test_an_index_that_does_not_belong_to_the_bytes_is_refused() -> None:
    data = long_chat(300)
    _, blob = read_indexed(data, FILE)
    assert blob is not None and read_with_index(data, FILE, blob) is not None
    other_file = (FILE[0], FILE[1] + 1)
    assert read_with_index(data, other_file, blob) is None  # another inode (a file put in its place)
    # The same size, one byte changed inside what the index covers (a file rewritten in place).
    at = len(data) // 2
    changed = data[:at] + (b"X" if data[at : at + 1] != b"X" else b"Y") + data[at + 1 :]
    assert len(changed) == len(data) and read_with_index(changed, FILE, blob) is None
    assert read_with_index(data[: len(data) // 3], FILE, blob) is None  # truncated
    assert read_with_index(b"", FILE, blob) is None
    another = data.replace(b"20261202-000000-abcd", b"20261202-000000-ef01")  # another chat's file
    assert len(another) == len(data) and read_with_index(another, FILE, blob) is None
    # Indexes torn by a crash, foreign bytes, an index of another version.
    for bad in (blob[: len(blob) // 2], blob[:10], b"", b"\x00" * 64, b"PEARGARDEN-SESSION-INDEX", data[:4096]):
        assert read_with_index(data, FILE, bad) is None
    flipped = bytearray(blob)
    flipped[len(blob) // 2] ^= 0x40
    assert read_with_index(data, FILE, bytes(flipped)) is None
    head, fields = _payload(blob)
    assert read_with_index(data, FILE, _packed(head, fields)) is not None  # the test's own packing is right
    assert read_with_index(data, FILE, _packed(head, [fields[0] + 1, *fields[1:]])) is None
    assert read_with_index(data, FILE, _packed(head, fields[:-1])) is None
    other_order = b"big" if sys.byteorder == "little" else b"little"
    assert read_with_index(data, FILE, _packed(head.replace(sys.byteorder.encode(), other_order), fields)) is None


def test_an_index_with_impossible_columns_is_refused() -> None:
    """Consistent with its own checksum but not with the file: offsets past the covered bytes, ids
    that repeat, a path that does not end at the leaf."""
    data = long_chat(50)
    _, blob = read_indexed(data, FILE)
    assert blob is not None
    head, fields = _payload(blob)
    ids = fields[9]
    broken = [
        [*fields[:3], len(data) + 10, *fields[4:]],  # covers more bytes than the file has
        [*fields[:9], [ids[0], *ids[:-1]], *fields[10:]],  # an id twice
        [*fields[:15], fields[15][:-1]],  # the path stops short of the leaf
        [*fields[:15], [*fields[15][:-1], "nowhere"]],
        [*fields[:11], bytes([9]) * len(ids), *fields[12:]],  # no such entry type
        [*fields[:14], b"\x00" * 3, *fields[15:]],  # offsets that are not whole numbers
        [*fields[:6], [0, 5], *fields[7:]],  # a header span that is not the header's line
        [*fields[:6], [0, 5, 9], *fields[7:]],
    ]
    for fields_ in broken:
        assert read_with_index(data, FILE, _packed(head, fields_)) is None


def test_ids_with_lone_surrogates_give_no_index_and_the_same_read() -> None:
    data = b"\n".join(
        [
            header_line("20261202-000000-abcd", STAMP).encode(),
            b'{"id":"\\ud800","parentId":null,"type":"message","timestamp":"x","message":{"role":"user","content":"a"}}',
        ]
    ) + b"\n" + entry_line(message_entry("0000000b", None, STAMP, {"role": "user", "content": "b"})).encode() + b"\n"
    loaded, blob = read_indexed(data, FILE)
    assert blob is None
    assert_same_read(loaded, data)
