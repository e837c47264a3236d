"""Variables in the session tree: notes on messages follow edits, deletes, hides and swipes; the
recorded SillyTavern + TavernHelper chats import and export with every swipe's variables exactly."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from test_sessions_tree import TS, _chat, _ids, _say, apply

from peargarden.sessions import SessionTree, build_context, custom_entry, ops
from peargarden.sessions.sillytavern import export_chat, import_chat
from peargarden.sessions.variables import (
    CHAT_METADATA_TYPE,
    MESSAGE_VARIABLES_TYPE,
    chat_metadata,
    customs_as_data,
    message_notes,
    note_data,
)

CASES = Path(__file__).parents[1] / "variables" / "mvu_e2e"


def _note(tree: SessionTree, new_id: ops.NewId, message: str, variables: Any = None, text: str | None = None) -> None:
    data = note_data(message, variables=variables, text=text)
    tree.add(custom_entry(new_id(), tree.leaf, TS, MESSAGE_VARIABLES_TYPE, data))


def _variables(tree: SessionTree) -> list[Any]:
    notes = message_notes(tree.path())
    return [notes.get(entry.id, {}).get("variables") for entry in tree.messages()]


def test_a_note_gives_its_message_variables_and_the_text_it_shows() -> None:
    tree, new_id = _chat()
    reply = tree.messages()[-1].id
    shown = "记得，十年前从镇北渡口走的。\n\n<StatusPlaceHolderImpl/>"
    _note(tree, new_id, reply, {"stat_data": {"好感度": 15}}, shown)
    assert _variables(tree) == [None, None, {"stat_data": {"好感度": 15}}]
    assert build_context(tree.path())[-1].content.endswith("<StatusPlaceHolderImpl/>")
    assert tree.messages()[-1].message["content"] == "记得，十年前从镇北渡口走的。"  # the model's words are kept
    # A later note for the same message wins, key by key.
    _note(tree, new_id, reply, {"stat_data": {"好感度": 20}})
    notes = message_notes(tree.path())[reply]
    assert notes["variables"] == {"stat_data": {"好感度": 20}} and notes["text"].endswith("<StatusPlaceHolderImpl/>")


def test_notes_stay_on_an_edited_message_and_go_with_a_deleted_one() -> None:
    tree, new_id = _chat()
    greeting, user, reply = (entry.id for entry in tree.messages())
    _note(tree, new_id, reply, {"stat_data": {"金钱": 80}})
    apply(tree, ops.plan_edit(tree, 2, "记得，他从渡口走的。"))
    assert _variables(tree) == [None, None, {"stat_data": {"金钱": 80}}]  # edited in place: the same message
    assert tree.messages()[-1].id == reply
    assert message_notes(tree.path())[reply]["variables"] == {"stat_data": {"金钱": 80}}
    apply(tree, ops.plan_delete(tree, 2, new_id, TS))
    assert _variables(tree) == [None, None]
    assert not message_notes(tree.path())  # the deleted reply's note did not land on the user's message
    _say(tree, new_id, "assistant", "不记得了。")
    apply(tree, ops.plan_delete(tree, 1, new_id, TS))  # the user's message goes, the reply stays
    assert [m.content for m in build_context(tree.path())] == ["客官里边请，听雨轩今日有新茶。", "不记得了。"]
    del greeting, user


def test_a_hide_keeps_the_notes_on_their_messages() -> None:
    tree, new_id = _chat()
    reply = tree.messages()[-1].id
    _note(tree, new_id, reply, {"stat_data": {"心情": "平静"}}, "记得。\n\n<StatusPlaceHolderImpl/>")
    apply(tree, ops.plan_hide(tree, 1, 2, True))
    assert _variables(tree)[-1] == {"stat_data": {"心情": "平静"}}
    assert build_context(tree.path())[-1].content == "记得。\n\n<StatusPlaceHolderImpl/>"


def test_a_regenerate_forks_where_the_reply_did_so_swipes_keep_their_own_variables() -> None:
    tree, new_id = SessionTree(), _ids()
    _say(tree, new_id, "assistant", "客官里边请。")
    user = _say(tree, new_id, "user", "掌柜可还记得怀瑾公子？")
    # State the branch keeps between the user's message and the reply (an imported record, say).
    _note(tree, new_id, user, {"stat_data": {"金钱": 100}})
    first = _say(tree, new_id, "assistant", "记得。")
    _note(tree, new_id, first, {"stat_data": {"金钱": 80}})
    apply(tree, ops.plan_regenerate(tree))
    second = _say(tree, new_id, "assistant", "不记得。")
    _note(tree, new_id, second, {"stat_data": {"金钱": 60}})
    assert ops.swipe_position(tree) == (2, 2)
    assert _variables(tree)[1:] == [{"stat_data": {"金钱": 100}}, {"stat_data": {"金钱": 60}}]
    apply(tree, ops.plan_swipe(tree, -1))
    assert _variables(tree)[1:] == [{"stat_data": {"金钱": 100}}, {"stat_data": {"金钱": 80}}]


def _recorded_chat(case: str, name: str) -> list[dict[str, Any]]:
    text = (CASES / case / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def _tree(lines: list[dict[str, Any]]) -> tuple[SessionTree, dict[str, Any]]:
    counter = itertools.count()
    imported = import_chat(lines, lambda: f"e{next(counter):07d}", TS)
    tree = SessionTree()
    for entry in imported.entries:
        tree.add(entry)
    tree.set_leaf(imported.leaf)
    return tree, imported.header


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir()))
def test_recorded_chats_import_and_export_with_every_swipes_variables(case: str) -> None:
    for path in sorted((CASES / case).glob("chat_*.jsonl")):
        lines = _recorded_chat(case, path.name)
        tree, header = _tree(lines)
        assert export_chat(tree, header, "User", "小梨") == lines, path.name
    # After the swipe the third reply has two swipes, each with its own variables.
    tree, _ = _tree(_recorded_chat(case, "chat_04_swipe.jsonl"))
    assert ops.swipe_position(tree) == (2, 2)
    apply(tree, ops.plan_swipe(tree, -1))
    lines = _recorded_chat(case, "chat_04_swipe.jsonl")
    shown = _variables(tree)[-1]
    assert shown == lines[-1]["variables"][0]
    exported = export_chat(tree, {}, "User", "小梨")
    assert exported[-1]["variables"] == lines[-1]["variables"] and exported[-1]["swipe_id"] == 0


def test_a_new_swipe_on_an_imported_reply_gets_its_own_record_and_the_others_keep_theirs() -> None:
    lines = _recorded_chat("01-minimal-classic-mvu", "chat_01_send.jsonl")
    tree, header = _tree(lines)
    new_id = _ids()
    apply(tree, ops.plan_regenerate(tree))
    _say(tree, new_id, "assistant", "小梨低头不语。")
    shown = "小梨低头不语。\n\n<StatusPlaceHolderImpl/>"
    _note(tree, new_id, tree.messages()[-1].id, {"stat_data": {"金钱": 1}}, shown)
    exported = export_chat(tree, header, "User", "小梨")[-1]
    assert exported["swipes"][1] == "小梨低头不语。\n\n<StatusPlaceHolderImpl/>" and exported["swipe_id"] == 1
    assert exported["variables"] == [lines[-1]["variables"][0], {"stat_data": {"金钱": 1}}]


def test_chat_variables_come_in_with_the_header_and_go_out_with_the_branch() -> None:
    lines = _recorded_chat("01-minimal-classic-mvu", "chat_01_send.jsonl")
    lines[0]["chat_metadata"]["variables"] = {"回合": 3, "天气": "晴"}
    tree, header = _tree(lines)
    assert chat_metadata(customs_as_data(tree.path()))["variables"] == {"回合": 3, "天气": "晴"}
    assert export_chat(tree, header, "User", "小梨") == lines
    tree.add(custom_entry("m1", tree.leaf, TS, CHAT_METADATA_TYPE, {"variables": {"回合": 4}, "tainted": True}))
    head = export_chat(tree, header, "User", "小梨")[0]
    assert head["chat_metadata"]["variables"] == {"回合": 4} and head["chat_metadata"]["integrity"]
