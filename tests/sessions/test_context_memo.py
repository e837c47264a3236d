"""The per-chat context memo gives what build_context gives over the same path, whatever the tree
did in between (new messages, swipes, rewinds, branches, compactions)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.sessions import SessionTree, build_context, compaction_entry, custom_entry, message_entry
from peargarden.sessions.context import ContextMemo

STEP = st.one_of(
    st.tuples(st.just("message"), st.sampled_from(["user", "assistant", "tool"]), st.integers(0, 3)),
    st.tuples(st.just("custom"), st.just(""), st.integers(0, 0)),
    st.tuples(st.just("compaction"), st.just(""), st.integers(0, 50)),
    st.tuples(st.just("leaf"), st.just(""), st.integers(0, 50)),
    st.tuples(st.just("build"), st.just(""), st.integers(0, 0)),
)


@settings(max_examples=examples(200), deadline=None)
@given(steps=st.lists(STEP, max_size=60))
def test_the_memo_equals_a_fresh_build_after_any_steps(steps: list[tuple[str, str, int]]) -> None:
    tree = SessionTree()
    memo = ContextMemo()
    made: list[str] = []
    for number, (kind, role, pick) in enumerate(steps):
        entry_id = f"{number:08x}"
        if kind == "message":
            tree.add(message_entry(entry_id, tree.leaf, "t", {"role": role, "content": f"第{number}句：渡口的柳树"}))
        elif kind == "custom":
            tree.add(custom_entry(entry_id, tree.leaf, "t", "draft", {"n": number}))
        elif kind == "compaction" and tree.leaf is not None:
            path = tree.path()
            kept = path[pick % len(path)].id
            tree.add(compaction_entry(entry_id, tree.leaf, "t", f"摘要{number}", kept, 100))
        elif kind == "leaf" and made:
            tree.set_leaf(made[pick % len(made)])
        if tree.leaf is not None and tree.leaf not in made:
            made.append(tree.leaf)
        if kind == "build" or number % 3 == 0:
            path = tree.path()
            assert memo.build(path) == build_context(path)


def test_a_long_chat_extends_the_same_message_objects() -> None:
    tree = SessionTree()
    for n in range(5000):
        tree.add(message_entry(f"{n:08x}", tree.leaf, "t", {"role": "user" if n % 2 else "assistant", "content": "茶"}))
    memo = ContextMemo()
    first = memo.build(tree.path())
    tree.add(message_entry("ffffffff", tree.leaf, "t", {"role": "user", "content": "再来一壶"}))
    second = memo.build(tree.path())
    assert second[:-1] == first and all(a is b for a, b in zip(first, second, strict=False))
    assert second == build_context(tree.path())
    first.append(second[0])  # a caller changing its list does not change the memo's
    assert memo.build(tree.path()) == second
