"""A context message made straight from an entry's line (sessions/context.py ``context_message``: the
line decoded into the message's own fields) equals the one made from the decoded body
(``ContextMessage.from_entry``) for every line: well-formed messages, and lines whose fields have other
types, are missing, null, hold lone surrogates or invalid UTF-8 (those take the slow way)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.sessions.context import ContextMessage, build_context, context_message
from peargarden.sessions.entries import Entry

texts = st.sampled_from(["青梧", "", "掌柜，今天有什么茶？", "\ud800半个", "a\nb", "🍐"])
odd = st.one_of(st.none(), st.integers(-3, 3), st.booleans(), texts, st.lists(texts, max_size=2), st.just({"k": "值"}))
calls = st.lists(
    st.fixed_dictionaries({"id": texts, "name": st.sampled_from(["draft_write", "ask"]), "arguments": texts}),
    max_size=2,
)
fields: dict[str, Any] = {
    "role": st.one_of(st.sampled_from(["user", "assistant", "tool", "system"]), odd),
    "content": st.one_of(texts, odd),
    "name": st.one_of(texts, odd),
    "reasoning": st.one_of(texts, odd),
    "tool_calls": st.one_of(calls, odd),
    "tool_call_id": st.one_of(texts, odd),
    "is_error": st.one_of(st.booleans(), odd),
    "tags": st.one_of(st.lists(st.sampled_from(["work", "hidden", "greeting", "写卡维护"]), max_size=2), odd),
    "entry_id": st.one_of(texts, odd),
    "usage": st.just({"input": 3, "output": 5}),
}
messages = st.fixed_dictionaries({}, optional=fields)


def _line(message: Any, *, raw: bytes | None = None) -> bytes:
    if raw is not None:
        return raw
    head = {"id": "a1b2c3d4", "parentId": None, "type": "message", "timestamp": "2026-12-03T00:00:00.000Z"}
    return json.dumps({**head, "message": message}, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _pair(line: bytes) -> tuple[ContextMessage, ContextMessage]:
    fast = context_message(Entry("a1b2c3d4", None, "message", "t", None, line))
    slow = ContextMessage.from_entry(Entry("a1b2c3d4", None, "message", "t", None, line))
    return fast, slow


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(messages, odd))
def test_a_message_from_its_line_is_the_message_from_its_body(message: Any) -> None:
    fast, slow = _pair(_line(message))
    assert fast == slow
    assert fast.entry_id == "a1b2c3d4"


def test_lines_the_fast_way_refuses_give_the_same_message() -> None:
    lines = [
        b'{"id":"a1b2c3d4","parentId":null,"type":"message","message":{"role":"user","content":"\\ud800x"}}',
        b'{"id":"a1b2c3d4","parentId":null,"type":"message","message":{"role":"user","content":"\xff\xfe"}}',
        b'{"id":"a1b2c3d4","parentId":null,"type":"message","message":{"role":"user"}}',
        b'{"id":"a1b2c3d4","parentId":null,"type":"message"}',
        b'{"id":"a1b2c3d4","parentId":null,"type":"message","message":["user","hi"]}',
        b'{"id":"a1b2c3d4","parentId":null,"type":"message","message":{"role":"user","content":"one","content":"two"}}',
    ]
    for line in lines:
        fast, slow = _pair(line)
        assert fast == slow, line


def test_a_context_from_lines_equals_one_from_bodies() -> None:
    made = [
        Entry(f"e{n}", f"e{n - 1}" if n else None, "message", "t", None, _line({"role": "user", "content": f"第{n}句"}))
        for n in range(50)
    ]
    decoded = [Entry(e.id, e.parent_id, e.type, e.timestamp, e.body) for e in made]  # bodies decoded first
    fresh = [
        Entry(e.id, e.parent_id, e.type, e.timestamp, None, _line({"role": "user", "content": f"第{n}句"}))
        for n, e in enumerate(made)
    ]
    assert build_context(fresh) == build_context(decoded)
    assert all(e.raw_line() is not None for e in fresh)  # the bodies were not decoded for it
