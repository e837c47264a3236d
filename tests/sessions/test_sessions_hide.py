"""Hiding messages from the model (SillyTavern's /hide and /unhide) as a plan over the tree: a flag on
each message (ST's ``is_system``), set and cleared in place — the chat stays one line, no copies."""

from __future__ import annotations

import pytest
from test_sessions_tree import TS, _chat, _ids, _say, apply

from peargarden.errors import BadInput
from peargarden.sessions import SessionTree, build_context, message_entry, ops
from peargarden.sessions.sillytavern import export_chat, import_chat


def _hidden(tree: SessionTree) -> list[bool]:
    return ["hidden" in m.tags for m in build_context(tree.path())]


def test_hide_a_range_then_show_it_again_in_place() -> None:
    tree, new_id = _chat()
    _say(tree, new_id, "user", "他后来去了哪里？")
    before = [m.content for m in build_context(tree.path())]
    ids, leaf, entries = [e.id for e in tree.messages()], tree.leaf, len(tree)
    apply(tree, ops.plan_hide(tree, 1, 2, True))
    assert _hidden(tree) == [False, True, True, False]
    assert [m.content for m in build_context(tree.path())] == before  # kept in the chat, only marked
    # The same messages, the same branch: nothing copied, nothing left behind in the tree.
    assert [e.id for e in tree.messages()] == ids and tree.leaf == leaf and len(tree) == entries
    assert [row.sibling_count for row in tree.rows()] == [1, 1, 1, 1]
    assert ops.plan_hide(tree, 1, 1, True) is None  # hidden already: nothing to do
    apply(tree, ops.plan_hide(tree, 2, 2, False))
    assert _hidden(tree) == [False, True, False, False]
    assert "tags" not in tree.get(ids[2]).message  # shown again: as it was before
    assert [r.get("tags") for r in tree.revisions(ids[2])] == [None, ["hidden"]]  # what it was, kept
    with pytest.raises(BadInput):
        ops.plan_hide(tree, 3, 9, True)


def test_a_hidden_reply_takes_its_tool_results_along() -> None:
    tree, new_id = SessionTree(), _ids()
    _say(tree, new_id, "user", "查一下怀瑾。")
    call = {"id": "c1", "name": "lorebook_search", "arguments": "{}"}
    tree.add(message_entry(new_id(), tree.leaf, TS, {"role": "assistant", "content": "", "tool_calls": [call]}))
    tree.add(message_entry(new_id(), tree.leaf, TS, {"role": "tool", "content": "怀瑾：……", "tool_call_id": "c1"}))
    _say(tree, new_id, "assistant", "怀瑾是十年前的客人。")
    apply(tree, ops.plan_hide(tree, 1, 1, True))
    assert _hidden(tree) == [False, True, True, False]  # the call and its answer, never one alone
    assert ops.plan_hide(tree, 2, 2, False) is None  # a tool result alone is not a message of the story


def test_export_says_is_system_for_a_hidden_message_and_keeps_an_imported_line_otherwise() -> None:
    lines = [
        {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-30@00h00m00s"},
        {"name": "青梧", "is_user": False, "is_system": False, "send_date": "2026-11-30@00h00m01s",
         "mes": "客官里边请。", "extra": {"自定义": 1}},
        {"name": "旅人", "is_user": True, "is_system": True, "send_date": "2026-11-30@00h00m02s",
         "mes": "（场外：先睡了）", "extra": {}},
    ]  # fmt: skip
    new_id = _ids()
    imported = import_chat(lines, new_id, TS)
    tree = SessionTree()
    for entry in imported.entries:
        tree.add(entry)
    tree.set_leaf(imported.leaf)
    assert _hidden(tree) == [False, True]  # ST's is_system arrives as "hidden"
    apply(tree, ops.plan_hide(tree, 0, 1, True))
    apply(tree, ops.plan_hide(tree, 1, 1, False))
    out = export_chat(tree, imported.header, "旅人", "青梧")
    assert [line["is_system"] for line in out[1:]] == [True, False]
    assert out[1]["extra"] == {"自定义": 1} and out[1]["send_date"] == lines[1]["send_date"]  # the rest as imported
