"""Session files of every shape for the session tests: our lines, other tools' lines, torn and damaged
lines, blank and Unicode-blank lines, CRLF, invalid UTF-8, lone surrogates, NaN; and what a loaded
session means, to compare two ways of reading one file."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from peargarden.sessions import amend_line, entry_line, header_line, leaf_line, message_entry
from peargarden.sessions.codec import LoadedSession
from peargarden.sessions.entries import ENTRY_TYPES
from peargarden.sessions.tree import SessionTree

STAMP = "2026-12-02T00:00:00.000Z"


def meaning(loaded: LoadedSession) -> dict[str, Any]:
    entries = [(e.id, e.parent_id, e.type, e.timestamp, e.body) for e in loaded.tree]
    return {
        "header": loaded.header,
        "entries": entries,
        "leaf": loaded.tree.leaf,
        "warnings": loaded.warnings,
        "torn": loaded.torn_tail,
    }


def same(a: Any, b: Any) -> bool:
    # NaN is not equal to itself: compare the JSON texts.
    return json.dumps(a, ensure_ascii=False, sort_keys=True) == json.dumps(b, ensure_ascii=False, sort_keys=True)


TEXTS = ["掌柜，今天有什么茶？", "青梧放下茶盏。", "\ud800孤", "渡口\r\n柳树", "", "\u3000"]
ID_LIST = ["0000000a", "0000000b", "0000000c", "0000000d", "梨园"]
TEXT = st.sampled_from(TEXTS)
IDS = st.sampled_from(ID_LIST)

# Every line file_lines() draws from, made once: a line is two choices (its kind, then one of that
# kind's lines; a torn line a third, where it is cut), not five to eight draws of its parts, which
# were most of the session properties' time.  The odds within a kind are those of drawing the parts:
# a parent is None half the time (st.one_of(st.none(), IDS)), so None is listed as often as the ids.
_PARENTS = [None] * len(ID_LIST) + ID_LIST
_GOOD = [
    entry_line(message_entry(entry_id, parent, STAMP, {"role": "user", "content": text}))
    for entry_id in ID_LIST
    for parent in _PARENTS
    for text in TEXTS
]
_FOREIGN_TYPES = [*ENTRY_TYPES, "session", "leaf", 3, None]
_LINES: dict[int, list[bytes]] = {
    # 0-4 (a good line), 6 (torn) and 10 (invalid UTF-8) are made from _GOOD below.
    5: [leaf_line(parent, STAMP).encode() for parent in _PARENTS],
    7: [b"", b"   ", "\u3000".encode(), b"\t"],
    # written by another tool: other key order, spaces, NaN, numbers, odd types
    8: [
        json.dumps(
            {"type": kind, "id": entry_id, "parentId": parent, "x": float("nan"), "timestamp": stamp},
            indent=None,
            separators=(", ", ": "),
        ).encode()
        for kind in _FOREIGN_TYPES
        for entry_id in ID_LIST
        for parent in _PARENTS
        for stamp in (0, 1.5, None)
    ],
    9: [b"[1, 2]", b'"\xe6\xa2\xa8"', b"null", b"{", b"}{", b"\xff\xfe"],
    # invalid UTF-8 inside a text, or a CRLF line end
    10: [good.encode().replace("茶".encode(), b"\xe8\x8c") + end for good in _GOOD for end in (b"", b"\r")],
    11: [
        json.dumps({"id": entry_id, "type": "leaf", "leafId": parent}).encode()
        for entry_id in ID_LIST
        for parent in _PARENTS
    ],
    # a message changed in place (hidden, continued), maybe one that is not there: each of the three
    # kinds of change a third of the time
    12: [
        amend_line(target, changes, STAMP).encode()
        for target in ID_LIST
        for changes in [{"tags": ["hidden"]}] * len(TEXTS)
        + [{"tags": None}] * len(TEXTS)
        + [{"content": text} for text in TEXTS]
    ],
    # an amend record written by another tool, or broken
    13: [
        b'{"type": "amend", "targetId": "0000000a"}',
        b'{"type": "amend", "targetId": 3, "message": {}}',
        b'{"type":"amend","targetId":"0000000b","message":{"content":NaN}}',
    ],
}
_GOOD_LINES = st.sampled_from([good.encode() for good in _GOOD])
_LINE_OF = {kind: st.sampled_from(lines) for kind, lines in _LINES.items()}


@st.composite
def _torn(draw: st.DrawFn) -> bytes:
    """A torn append, later followed by more lines."""
    good = draw(_GOOD_LINES)
    return good[: draw(st.integers(0, len(good)))]


@st.composite
def file_lines(draw: st.DrawFn) -> list[bytes]:
    lines = [header_line("20261202-000000-abcd", STAMP, card="青梧", mode="stage").encode()]
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.integers(0, 13))
        if kind <= 4:
            lines.append(draw(_GOOD_LINES))
        elif kind == 6:
            lines.append(draw(_torn()))
        else:
            lines.append(draw(_LINE_OF[kind]))
    return lines


def drawn(tree: SessionTree) -> list[tuple[int, str, bool, int, int]]:
    return [(r.depth, r.entry.id, r.on_path, r.sibling_index, r.sibling_count) for r in tree.rows()]


def long_chat(messages: int, *, crlf: bool = False, chat_id: str = "20261202-000000-abcd") -> bytes:
    """A chat like a long played one: replies with three swipes (the middle chosen), side branches."""
    lines = [header_line(chat_id, STAMP, card="青梧", mode="stage")]
    parent: str | None = None
    counter = 0
    for n in range(messages):
        role = "user" if n % 2 else "assistant"
        if role == "assistant":
            swipes = []
            for k in range(3):
                counter += 1
                text = f"第{n}句·其{k}\ud800"
                entry = message_entry(f"{counter:08x}", parent, STAMP, {"role": role, "content": text})
                lines.append(entry_line(entry))
                swipes.append(entry.id)
            parent = swipes[1]
            lines.append(leaf_line(parent, STAMP))
        else:
            counter += 1
            entry = message_entry(f"{counter:08x}", parent, STAMP, {"role": role, "content": f"掌柜（{n}）"})
            lines.append(entry_line(entry))
            parent = entry.id
        if n % 50 == 49:  # a side branch left behind by /branch: the leaf moved back
            side = parent
            for k in range(6):
                counter += 1
                entry = message_entry(f"{counter:08x}", side, STAMP, {"role": "user", "content": f"岔路{n}-{k}"})
                lines.append(entry_line(entry))
                side = entry.id
            lines.append(leaf_line(parent, STAMP))
    text = "\n".join(lines) + "\n"
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
