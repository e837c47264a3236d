"""``SessionTree.customs`` and ``messages`` read only what the active path grew by since they were last
asked; whatever
the tree did in between (messages, customs, swipes, regenerations, branches, edits, deletions, leaf
moves, appended lines of another process), it gives what a plain pass over ``tree.path()`` gives."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.errors import PearError
from peargarden.sessions import SessionTree, custom_entry, message_entry, ops
from peargarden.sessions.entries import Entry

TS = "2026-12-02T00:00:00Z"
KINDS = ["message", "custom", "swipe", "regenerate", "branch", "edit", "delete", "leaf", "loaded", "ask"]
STEP = st.tuples(st.sampled_from(KINDS), st.integers(0, 40))


def _plain(tree: SessionTree, custom_type: str | None) -> list[Entry]:
    return [
        e
        for e in tree.path()
        if e.type == "custom" and (custom_type is None or e.body.get("customType") == custom_type)
    ]


def _check(tree: SessionTree) -> None:
    for custom_type in (None, "persona", "mode", "absent"):
        assert tree.customs(custom_type) == _plain(tree, custom_type)
    assert tree.messages() == [e for e in tree.path() if e.type == "message"]


@settings(max_examples=examples(150), deadline=None)
@given(steps=st.lists(STEP, max_size=50))
def test_customs_equal_a_plain_pass_over_the_path_after_any_steps(steps: list[tuple[str, int]]) -> None:
    tree = SessionTree()
    counter = itertools.count(1)

    def new_id() -> str:
        return f"{next(counter):08x}"

    def apply(plan: ops.Plan | None) -> None:
        if plan is None:
            return
        tree.set_leaf(plan.start_leaf)
        for entry in plan.entries:
            tree.add(entry)

    for kind, pick in steps:
        messages = tree.messages()
        index = pick % len(messages) if messages else 0
        try:
            if kind == "message":
                role = "user" if pick % 2 else "assistant"
                tree.add(message_entry(new_id(), tree.leaf, TS, {"role": role, "content": f"第{pick}句：渡口的柳树"}))
            elif kind == "custom":
                custom_type = ("persona", "mode", "story-notes")[pick % 3]
                tree.add(custom_entry(new_id(), tree.leaf, TS, custom_type, {"n": pick, "名": "青梧"}))
            elif kind == "swipe":
                apply(ops.plan_swipe(tree, 1 if pick % 2 else -1))
            elif kind == "regenerate":
                apply(ops.plan_regenerate(tree))
                tree.add(message_entry(new_id(), tree.leaf, TS, {"role": "assistant", "content": f"又一说{pick}"}))
            elif kind == "branch" and messages:
                apply(ops.plan_branch(tree, index))
            elif kind == "edit" and messages:
                apply(ops.plan_edit(tree, index, f"改过的第{pick}句"))
            elif kind == "delete" and messages:
                apply(ops.plan_delete(tree, index, new_id, TS))
            elif kind == "leaf":
                ids = list(tree.ids())
                tree.set_leaf(ids[pick % len(ids)] if ids and pick else None)
            elif kind == "loaded":
                # Lines another process appended: a message and a custom under the leaf, read in at once.
                first = message_entry(new_id(), tree.leaf, TS, {"role": "user", "content": "另一处写的"})
                second = custom_entry(new_id(), first.id, TS, "mode", {"mode": "work"})
                tree.add_loaded({first.id: first, second.id: second}, second.id)
        except PearError:
            pass  # a plan the tree refuses (nothing to swipe, no user message yet): nothing changed
        if kind == "ask" or pick % 3 == 0:
            _check(tree)
    _check(tree)


def test_a_long_path_is_read_once_and_then_only_what_it_grew_by() -> None:
    tree = SessionTree()
    for n in range(3000):
        tree.add(message_entry(f"m{n:07x}", tree.leaf, TS, {"role": "user" if n % 2 else "assistant", "content": "茶"}))
        if n % 500 == 0:
            tree.add(custom_entry(f"c{n:07x}", tree.leaf, TS, "persona", {"name": f"客{n}"}))
    first = tree.customs("persona")
    tree.add(custom_entry("cfffffff", tree.leaf, TS, "persona", {"name": "新客"}))
    second = tree.customs("persona")
    assert second[:-1] == first and second[-1].id == "cfffffff"
    assert second == _plain(tree, "persona")
    first.clear()  # a caller's list is its own
    assert tree.customs("persona") == second
    # A swipe-like move back and forth replaces the path: the customs follow it.
    tree.set_leaf("m0000064")
    assert tree.customs() == _plain(tree, None) and len(tree.customs()) == 1
