"""Session files are read with the tree's fields checked in one pass and each body decoded on first
use.  Whatever the file holds (our lines, other tools' lines, torn and damaged lines, blank and
Unicode-blank lines, CRLF, invalid UTF-8, lone surrogates, NaN), the result is the one the line-by-line
``json`` reading gives: the same header, entries, parents, leaf, warnings and torn tail."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from kit.session_files import STAMP, drawn, file_lines, meaning, same
from peargarden.sessions import decode, decode_bytes, entry_line, feed, header_line, message_entry
from peargarden.sessions.codec import LoadedSession
from peargarden.sessions.entries import ENTRY_TYPES, Entry
from peargarden.sessions.tree import SessionTree

_BASE = ("id", "parentId", "type", "timestamp")


def reference(text: str) -> dict[str, Any]:
    """The file's meaning as read before: every line through ``json.loads``, whole."""
    lines = [line.rstrip("\r\n") for line in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    header: dict[str, Any] = {}
    entries: dict[str, tuple[Any, ...]] = {}
    leaf: str | None = None
    warnings: list[str] = []
    torn = False
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        number = index + 1
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            if index == len(lines) - 1:  # a torn append: skipped, and said
                torn = True
                warnings.append(f"第 {number} 行不完整（写到一半中断了：崩溃或磁盘已满），已跳过")
            else:
                warnings.append(f"第 {number} 行无法解析，已跳过")
            continue
        kind = value.get("type")
        if kind == "session" and not header:
            header.update(value)
            continue
        if kind == "leaf":
            target = value.get("leafId")
            if target is None or (isinstance(target, str) and target in entries):
                leaf = target
            else:
                warnings.append(f"第 {number} 行指向不存在的条目 {target}，已忽略")
            continue
        if kind == "amend":  # a message changed in place: its fields replaced, None dropping one
            target, changes = value.get("targetId"), value.get("message")
            found = entries.get(target) if isinstance(target, str) else None
            if found is None or found[2] != "message" or not isinstance(changes, dict):
                warnings.append(f"第 {number} 行的改写指向不存在的消息，已忽略")
                continue
            message = dict(found[4]["message"]) if isinstance(found[4].get("message"), dict) else {}
            for key, field in changes.items():
                if field is None:
                    message.pop(key, None)
                else:
                    message[key] = field
            entries[target] = (*found[:4], {**found[4], "message": message})
            continue
        entry_id, parent = value.get("id"), value.get("parentId")
        if not isinstance(entry_id, str) or not entry_id:
            warnings.append(f"第 {number} 行不是会话条目（entry without an id），已跳过")
            continue
        if parent is not None and not isinstance(parent, str):
            warnings.append(f"第 {number} 行不是会话条目（entry {entry_id}: parentId is not a string），已跳过")
            continue
        if kind not in ENTRY_TYPES:
            warnings.append(f"第 {number} 行不是会话条目（entry {entry_id}: unknown type {kind!r}），已跳过")
            continue
        if entry_id in entries:
            warnings.append(f"第 {number} 行重复的条目 id {entry_id}，已跳过")
            continue
        if parent is not None and parent not in entries:
            warnings.append(f"条目 {entry_id} 的父条目 {parent} 不存在，作为根保留")
            parent = None
        body = {k: v for k, v in value.items() if k not in _BASE}
        entries[entry_id] = (entry_id, parent, kind, str(value.get("timestamp") or ""), body)
        leaf = entry_id
    return {"header": header, "entries": list(entries.values()), "leaf": leaf, "warnings": warnings, "torn": torn}


@settings(max_examples=examples(200), deadline=None)
@given(lines=file_lines(), end=st.sampled_from([b"\n", b"", b"\r\n", b"\n\n"]))
def test_reading_a_file_means_what_reading_it_whole_meant(lines: list[bytes], end: bytes) -> None:
    data = b"\n".join(lines) + end
    expected = reference(data.decode("utf-8", errors="replace"))
    loaded = decode_bytes(data)
    assert same(meaning(loaded), expected)
    assert [entry.id for entry in loaded.tree.path()] == path_of(expected)
    assert drawn(loaded.tree) == drawn(tree_of(expected))  # children made on first use, in file order
    assert same(meaning(decode(data.decode("utf-8", errors="replace").split("\n"))), expected)


@settings(max_examples=examples(60), deadline=None)
@given(lines=file_lines(), split=st.integers(0, 30))
def test_lines_appended_later_are_read_the_same(lines: list[bytes], split: int) -> None:
    """What another process appended (``ChatFile.refresh``) lands as if read with the rest."""
    cut = min(split, len(lines))
    loaded = LoadedSession({}, SessionTree())
    feed(loaded, lines[:cut])
    loaded.tree.path()  # the active path cached, then extended or dropped by what is appended
    loaded.tree.rows()  # the children lists made, then extended by what is appended
    feed(loaded, [*lines[cut:], b""], first_line=cut + 1)
    expected = reference(b"\n".join([*lines, b"{}"]).decode("utf-8", errors="replace"))
    got = meaning(loaded)
    # A last line that does not parse is a torn tail only when the whole file is read at once.
    assert same(got["entries"], expected["entries"]) and got["leaf"] == expected["leaf"]
    assert [entry.id for entry in loaded.tree.path()] == path_of(expected)
    assert drawn(loaded.tree) == drawn(tree_of(expected))


def tree_of(expected: dict[str, Any]) -> SessionTree:
    """The reference's entries added one by one, as a chat being played adds them."""
    tree = SessionTree()
    for entry_id, parent, kind, timestamp, body in expected["entries"]:
        tree.add(Entry(entry_id, parent, kind, timestamp, body))
    tree.set_leaf(expected["leaf"])
    return tree


def path_of(expected: dict[str, Any]) -> list[str]:
    """The ids from the root down to the reference's leaf."""
    parents = {entry[0]: entry[1] for entry in expected["entries"]}
    out: list[str] = []
    current = expected["leaf"]
    while current is not None:
        out.append(current)
        current = parents[current]
    return out[::-1]


def test_a_long_chat_decodes_bodies_only_when_read() -> None:
    lines = [header_line("20261202-000000-abcd", STAMP, card="青梧").encode()]
    parent = None
    for n in range(20_000):
        message = {"role": "user" if n % 2 else "assistant", "content": f"第{n}句"}
        entry = message_entry(f"{n:08x}", parent, STAMP, message)
        lines.append(entry_line(entry).encode())
        parent = entry.id
    loaded = decode_bytes(b"\n".join(lines) + b"\n")
    entries = list(loaded.tree)
    assert all(e._body is None for e in entries)  # nothing decoded yet
    assert loaded.tree.path()[-1].message == {"role": "user", "content": "第19999句"}
    assert sum(e._body is not None for e in entries) == 1


def test_a_torn_line_before_trailing_unicode_blank_lines_is_a_torn_tail() -> None:
    good = header_line("20261202-000000-abcd", STAMP).encode()
    torn = entry_line(message_entry("0000000a", None, STAMP, {"role": "user", "content": "半句"})).encode()[:30]
    data = b"\n".join([good, torn, "\u3000".encode(), b"  "]) + b"\n"
    loaded = decode_bytes(data)
    assert loaded.torn_tail and len(loaded.tree) == 0
    assert loaded.warnings == ["第 2 行不完整（写到一半中断了：崩溃或磁盘已满），已跳过"]


def test_a_line_of_invalid_utf8_bytes_is_skipped_with_a_warning() -> None:
    """msgspec refuses it with a UnicodeDecodeError (not its own error): read as json read it."""
    good = header_line("20261202-000000-abcd", STAMP).encode()
    entry = entry_line(message_entry("0000000a", None, STAMP, {"role": "user", "content": "掌柜"})).encode()
    data = b"\n".join([good, b'{"id":"', b"\xff\xfe", entry]) + b"\n"
    loaded = decode_bytes(data)
    assert same(meaning(loaded), reference(data.decode("utf-8", errors="replace")))
    assert loaded.warnings == ["第 2 行无法解析，已跳过", "第 3 行无法解析，已跳过"] and len(loaded.tree) == 1
