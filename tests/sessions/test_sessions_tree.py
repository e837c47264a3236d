from __future__ import annotations

import itertools

import pytest

from peargarden.errors import BadInput
from peargarden.sessions import (
    SessionTree,
    build_context,
    compaction_entry,
    custom_entry,
    decode,
    entry_line,
    header_line,
    leaf_line,
    message_entry,
    ops,
)
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import export_chat, import_chat

TS = "2026-11-30T00:00:00Z"


def _ids() -> ops.NewId:
    counter = itertools.count(1)
    return lambda: f"{next(counter):08x}"


def _say(tree: SessionTree, new_id: ops.NewId, role: str, text: str) -> str:
    return tree.add(message_entry(new_id(), tree.leaf, TS, {"role": role, "content": text})).id


def _texts(tree: SessionTree) -> list[str]:
    return [m.content for m in build_context(tree.path())]


def _chat() -> tuple[SessionTree, ops.NewId]:
    tree, new_id = SessionTree(), _ids()
    _say(tree, new_id, "assistant", "客官里边请，听雨轩今日有新茶。")
    _say(tree, new_id, "user", "掌柜可还记得怀瑾公子？")
    _say(tree, new_id, "assistant", "记得，十年前从镇北渡口走的。")
    return tree, new_id


def apply(tree: SessionTree, plan: ops.Plan | None) -> None:
    assert plan is not None
    tree.set_leaf(plan.start_leaf)
    for entry in plan.entries:
        tree.add(entry)
    for entry_id, changes in plan.amends:
        tree.amend(entry_id, changes)


def test_regenerate_makes_a_sibling_and_swipe_moves_between_them() -> None:
    tree, new_id = _chat()
    apply(tree, ops.plan_regenerate(tree))
    _say(tree, new_id, "assistant", "怀瑾？不曾听说。")
    assert ops.swipe_position(tree) == (2, 2)
    apply(tree, ops.plan_swipe(tree, -1))
    assert ops.swipe_position(tree) == (1, 2)
    assert _texts(tree)[-1] == "记得，十年前从镇北渡口走的。"
    assert ops.plan_swipe(tree, +1) is not None
    apply(tree, ops.plan_swipe(tree, +1))
    assert ops.plan_swipe(tree, +1) is None  # past the last reply: the front generates a new one
    with pytest.raises(BadInput):
        apply(tree, ops.plan_swipe(tree, -5))


def test_branch_edit_delete_keep_old_versions() -> None:
    tree, new_id = _chat()
    before = len(tree)
    asked = tree.messages()[1]
    apply(tree, ops.plan_edit(tree, 1, "掌柜可认得怀瑾公子？"))
    assert _texts(tree) == [
        "客官里边请，听雨轩今日有新茶。",
        "掌柜可认得怀瑾公子？",
        "记得，十年前从镇北渡口走的。",
    ]
    # In place, as SillyTavern edits: no new entry, no new sibling; the old text is its revision.
    assert len(tree) == before and tree.messages()[1].id == asked.id
    assert [r["content"] for r in tree.revisions(asked.id)] == [asked.message["content"]]
    assert ops.plan_edit(tree, 1, "掌柜可认得怀瑾公子？").amends == []  # the same text: nothing to write
    apply(tree, ops.plan_delete(tree, 1, new_id, TS))
    assert _texts(tree) == ["客官里边请，听雨轩今日有新茶。", "记得，十年前从镇北渡口走的。"]
    apply(tree, ops.plan_branch(tree, 0))
    _say(tree, new_id, "user", "来一壶雨前龙井。")
    assert _texts(tree) == ["客官里边请，听雨轩今日有新茶。", "来一壶雨前龙井。"]
    # Three children under the greeting now: the question (edited in place), the delete-copy, the new branch.
    assert len(tree.children(tree.messages()[0].id)) == 3
    with pytest.raises(BadInput):
        ops.plan_edit(tree, 9, "x")


def test_undo_walks_back_through_edits_and_continues_and_never_redoes() -> None:
    tree, _new_id = _chat()
    reply = tree.messages()[2]
    written = reply.message["content"]
    apply(tree, ops.plan_continue(tree, reply, {"content": written + "那年雨也这么大。"}))
    apply(tree, ops.plan_hide(tree, 2, 2, True))  # no text changes: nothing to undo for it
    apply(tree, ops.plan_edit(tree, 2, "记得。"))
    assert _texts(tree)[-1] == "记得。"
    apply(tree, ops.plan_undo(tree, 2))
    assert _texts(tree)[-1] == written + "那年雨也这么大。"  # before the edit
    apply(tree, ops.plan_undo(tree, 2))
    assert _texts(tree)[-1] == written  # before the continue
    with pytest.raises(BadInput):
        ops.plan_undo(tree, 2)  # as far as the text it was written with; never the edit again
    assert tree.messages()[2].hidden  # the hide stays
    apply(tree, ops.plan_edit(tree, 1, "掌柜可认得怀瑾公子？"))
    apply(tree, ops.plan_undo(tree, 1))
    assert _texts(tree)[1] == "掌柜可还记得怀瑾公子？"
    assert ops.undo_target(tree, tree.messages()[1]) is None


def test_custom_entries_follow_the_branch() -> None:
    tree, new_id = _chat()
    fork_at = tree.leaf
    tree.add(custom_entry(new_id(), tree.leaf, TS, "sandbox_grant", {"tool": "bash", "unit": "ls"}))
    assert [e.body["data"]["unit"] for e in tree.customs("sandbox_grant")] == ["ls"]
    tree.set_leaf(tree.messages()[1].id)  # rewind before the grant
    assert tree.customs("sandbox_grant") == []
    tree.set_leaf(tree.deepest_leaf(fork_at or ""))
    assert len(tree.customs("sandbox_grant")) == 1


def test_compaction_replaces_old_context_with_summary() -> None:
    tree, new_id = _chat()
    kept = tree.messages()[2].id
    tree.add(compaction_entry(new_id(), tree.leaf, TS, "掌柜认得怀瑾。", kept, 120))
    _say(tree, new_id, "user", "他后来去了哪里？")
    texts = _texts(tree)
    assert "掌柜认得怀瑾。" in texts[0]
    assert texts[1:] == ["记得，十年前从镇北渡口走的。", "他后来去了哪里？"]


def test_file_lines_round_trip_with_leaf_records_and_a_torn_tail() -> None:
    tree, _ = _chat()
    apply(tree, ops.plan_regenerate(tree))
    lines = [header_line("20261130-000000-abcd", TS, card="青梧")]
    lines += [entry_line(e) for e in tree]
    lines.append(leaf_line(tree.leaf, TS))
    good = "\n".join(lines) + "\n"
    torn = good + entry_line(message_entry("ffffffff", tree.leaf, TS, {"role": "user", "content": "半"}))[:25]
    loaded = decode(torn.splitlines())
    assert loaded.torn_tail  # skipped, and said
    assert loaded.warnings == [f"第 {len(lines) + 1} 行不完整（写到一半中断了：崩溃或磁盘已满），已跳过"]
    assert loaded.header["card"] == "青梧"
    assert loaded.tree.leaf == tree.leaf
    assert [e.id for e in loaded.tree] == [e.id for e in tree]
    # A bad line in the middle (an old torn append followed by later appends) is skipped with a warning.
    middle = decode([lines[0], lines[1][:10], *lines[2:]])
    assert middle.warnings and not middle.torn_tail


def test_sillytavern_swipes_become_siblings_and_export_back() -> None:
    st = [
        {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-30", "chat_metadata": {}},
        {"name": "青梧", "is_user": False, "mes": "客官里边请。", "send_date": "x"},
        {"name": "旅人", "is_user": True, "mes": "掌柜好。", "send_date": "x"},
        {
            "name": "青梧",
            "is_user": False,
            "mes": "乙",
            "swipes": ["甲", "乙", "丙"],
            "swipe_id": 1,
            "swipe_info": [{"extra": {}}, {"extra": {"reasoning": "想一想"}}, {"extra": {}}],
            "send_date": "x",
        },
    ]
    tree, new_id = SessionTree(), _ids()
    imported = import_chat(st, new_id, TS)
    for entry in imported.entries:
        tree.set_leaf(entry.parent_id)
        tree.add(entry)
    tree.set_leaf(imported.leaf)
    assert _texts(tree) == ["客官里边请。", "掌柜好。", "乙"]
    assert ops.swipe_position(tree) == (2, 3)
    out = export_chat(tree, imported.header, "旅人", "青梧")
    assert out[0]["character_name"] == "青梧"
    assert [line["mes"] for line in out[1:]] == ["客官里边请。", "掌柜好。", "乙"]
    assert out[3]["swipes"] == ["甲", "乙", "丙"] and out[3]["swipe_id"] == 1
    assert out[1:] == st[1:]  # nothing changed: every line exactly as imported, swipe_info too
    # Another swipe chosen: the line follows it and keeps each swipe's own swipe_info.
    leaf = tree.get(imported.leaf)
    tree.set_leaf(tree.siblings(leaf.id)[2].id)
    changed = export_chat(tree, imported.header, "旅人", "青梧")[3]
    assert changed["mes"] == "丙" and changed["swipe_id"] == 2 and changed["swipes"] == ["甲", "乙", "丙"]
    assert changed["swipe_info"] == st[3]["swipe_info"] and changed["send_date"] == "x"
    assert changed["extra"] == {}  # 丙's own swipe carries no reasoning


def test_a_loaded_leaf_move_near_the_end_rejoins_the_path_in_a_new_list() -> None:
    """A swipe read from a file (a leaf record, or a few entries on a sibling) makes the path from the
    cached one; the old list is left as it was (readers keep what they found in it), and a move far
    from the end is walked from the root."""
    from peargarden.sessions import SessionTree

    tree = SessionTree()
    chain = {
        f"{n:08x}": message_entry(f"{n:08x}", f"{n - 1:08x}" if n else None, "t", {"role": "user"}) for n in range(200)
    }
    tree.add_loaded(chain, "000000c7")
    old = tree._active_path()
    before = list(old)
    swipe = message_entry("aaaaaaaa", "000000c5", "t", {"role": "assistant"})
    tree.add_loaded({"aaaaaaaa": swipe}, "aaaaaaaa")
    assert [e.id for e in tree.path()] == [*list(chain)[:198], "aaaaaaaa"]
    assert tree._active_path() is not old and old == before
    tree.add_loaded({}, "000000c6")  # back to the first reply: a leaf record
    assert [e.id for e in tree.path()] == list(chain)[:199]
    tree.add_loaded({}, "00000005")  # far from the end: walked again, the same answer
    assert [e.id for e in tree.path()] == list(chain)[:6]
    other_root = message_entry("bbbbbbbb", None, "t", {"role": "user"})
    tree.add_loaded({"bbbbbbbb": other_root}, "bbbbbbbb")
    assert [e.id for e in tree.path()] == ["bbbbbbbb"]


def test_going_back_to_a_version_returns_to_where_its_story_was_left() -> None:
    """A reply far up has three versions; the story went on from the middle one, whose own later
    replies have versions too (SillyTavern's swipes, imported).  Switching to another version and
    back finds the story where it was left, not down each newest version."""
    tree, new_id = SessionTree(), _ids()
    greeting = _say(tree, new_id, "assistant", "客官里边请。")
    question = _say(tree, new_id, "user", "雨什么时候停？")
    versions = [tree.add(message_entry(new_id(), question, TS, {"role": "assistant", "content": f"其{n}"})).id
                for n in range(3)]  # fmt: skip
    tree.set_leaf(versions[1])
    _say(tree, new_id, "user", "再来一壶。")
    later = tree.leaf
    kept, newest = (tree.add(message_entry(new_id(), later, TS, {"role": "assistant", "content": t})).id
                    for t in ("好。", "不卖了。"))  # fmt: skip
    tree.set_leaf(kept)
    assert tree.deepest_leaf(versions[1]) == newest  # nothing left yet: the newest versions, as before
    tree.set_leaf(versions[2])
    assert tree.deepest_leaf(versions[1]) == kept
    tree.set_leaf(tree.deepest_leaf(versions[1]))
    assert _texts(tree) == ["客官里边请。", "雨什么时候停？", "其1", "再来一壶。", "好。"]
    # The greeting's story was last left at the third version (just now), the first was never left.
    assert tree.deepest_leaf(greeting) == versions[2] and tree.deepest_leaf(versions[0]) == versions[0]


def test_several_messages_deleted_at_once_take_their_tool_results_along() -> None:
    tree, new_id = SessionTree(), _ids()
    _say(tree, new_id, "assistant", "客官里边请。")
    _say(tree, new_id, "user", "查一下怀瑾。")
    call = {"id": "c1", "name": "lorebook_search", "arguments": "{}"}
    tree.add(message_entry(new_id(), tree.leaf, TS, {"role": "assistant", "content": "", "tool_calls": [call]}))
    tree.add(message_entry(new_id(), tree.leaf, TS, {"role": "tool", "content": "怀瑾：……", "tool_call_id": "c1"}))
    _say(tree, new_id, "assistant", "怀瑾是十年前的客人。")
    _say(tree, new_id, "user", "他后来呢？")
    _say(tree, new_id, "assistant", "去了京城。")
    old_leaf = tree.leaf
    apply(tree, ops.plan_delete_many(tree, [2, 5, 2], new_id, TS))  # the call (its result goes too), a question
    assert _texts(tree) == ["客官里边请。", "查一下怀瑾。", "怀瑾是十年前的客人。", "去了京城。"]
    assert old_leaf in tree  # the old branch is still in the tree
    with pytest.raises(BadInput):
        ops.plan_delete_many(tree, [], new_id, TS)
    with pytest.raises(BadInput):
        ops.plan_delete_many(tree, [9], new_id, TS)


def test_a_drawn_tree_leaves_out_what_it_is_told_and_hangs_the_rest_from_the_nearest_drawn() -> None:
    """A page's branch tree draws messages only: the variables, notes and bookkeeping after a reply
    (three per MVU reply) are no nodes, and what follows them hangs from the reply."""
    tree, new_id = _chat()
    reply = tree.messages()[2]
    for kind in ("message-variables", "story-notes", "message-variables"):
        tree.add(custom_entry(new_id(), tree.leaf, TS, kind, {"名": "青梧"}))
    last_note = tree.leaf
    _say(tree, new_id, "user", "那他可曾回来过？")
    tree.set_leaf(last_note)  # a second branch after the notes: a sibling of the first question
    _say(tree, new_id, "user", "他后来去了哪里？")

    def messages_only(entry: Entry) -> bool:
        return entry.type == "message"

    rows = tree.rows(shown=messages_only)
    assert [row.entry.type for row in rows] == ["message"] * 5
    asked = [row for row in rows if row.entry.role == "user" and row.depth == 3]
    assert [row.parent for row in asked] == [reply.id, reply.id]  # past the notes, to the reply
    assert [(row.sibling_index, row.sibling_count) for row in asked] == [(0, 2), (1, 2)]
    assert rows[-1].on_path and not asked[0].on_path
    # Unfiltered, the notes are rows (the terminal's /tree, `pear sessions show`).
    assert len(tree.rows()) == 8 and all(row.parent == row.entry.parent_id for row in tree.rows())
    # A root that is no message starts at the message before it; the leaf a page marks, likewise.
    from_note = tree.rows(last_note, shown=messages_only)
    assert from_note[0].entry.id == reply.id and from_note[0].sibling_count == 1
    assert tree.shown_ancestor(last_note, messages_only) == reply.id
    assert tree.shown_ancestor(None, messages_only) is None
