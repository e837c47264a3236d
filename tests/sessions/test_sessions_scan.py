"""``MessageScan`` tests only what is new since the list it last saw, and always answers what a plain
pass over the list answers: whatever happened to the list in between (it grew, was cut back to a
branch point, or had a message replaced by an edit, a swipe or an equal copy — in the caller's
own list, which the scan must not share)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.scan import MessageScan, shared_start, without

TAGS = [[], [], ["hidden"], ["work"], ["greeting"]]
STEP = st.tuples(st.sampled_from(["grow", "cut", "replace", "copy", "fresh"]), st.integers(0, 30))


def _hidden(message: ContextMessage) -> bool:
    return "hidden" in message.tags


def _message(number: int) -> ContextMessage:
    role = "user" if number % 2 else "assistant"
    return ContextMessage(role, f"第{number}句：渡口的柳树", f"{number:08x}", tags=list(TAGS[number % len(TAGS)]))


@settings(max_examples=examples(200), deadline=None)
@given(steps=st.lists(STEP, max_size=40))
def test_the_scan_equals_a_plain_pass_after_any_steps(steps: list[tuple[str, int]]) -> None:
    calls = 0

    def tested(message: ContextMessage) -> bool:
        nonlocal calls
        calls += 1
        return _hidden(message)

    scan = MessageScan(tested)
    history: list[ContextMessage] = []
    made = 0
    for kind, pick in steps:
        if kind == "grow":
            for _ in range(pick % 5 + 1):
                made += 1
                history.append(_message(made))
        elif kind == "cut":
            del history[pick % (len(history) + 1) :]
        elif kind == "replace" and history:  # an edit or a swipe: another message at that place
            made += 1
            history[pick % len(history)] = _message(made)
        elif kind == "copy" and history:  # an equal message, not the same object (a rebuilt summary)
            index = pick % len(history)
            old = history[index]
            history[index] = ContextMessage(old.role, old.content, old.entry_id, tags=list(old.tags))
        elif kind == "fresh":
            history = list(history)
        expected = [index for index, message in enumerate(history) if _hidden(message)]
        before = calls
        assert scan(history) == expected
        assert calls - before <= len(history)
    # Asking again about the same list tests nothing.
    before = calls
    assert scan(history) == [index for index, message in enumerate(history) if _hidden(message)]
    assert calls == before


def test_a_grown_list_is_tested_only_where_it_grew() -> None:
    seen: list[str] = []

    def test(message: ContextMessage) -> bool:
        seen.append(message.content)
        return "hidden" in message.tags

    scan = MessageScan(test)
    history = [_message(n) for n in range(2000)]
    first = scan(history)
    seen.clear()
    history = [*history, _message(2000), _message(2001)]
    assert scan(history) == [
        *first,
        *([2000] if _hidden(history[2000]) else []),
        *([2001] if _hidden(history[2001]) else []),
    ]
    assert seen == [history[2000].content, history[2001].content]
    seen.clear()
    history[1500] = _message(9999)  # a message replaced in the middle: tested again from there
    scan(history)
    assert len(seen) == len(history) - 1500


def test_shared_start_and_without() -> None:
    a, b, c = _message(1), _message(2), _message(3)
    assert shared_start([a, b, c], [a, b]) == 2
    assert shared_start([a, b], [a, b, c]) == 2
    assert shared_start([a, c], [a, b]) == 1
    assert shared_start([], [a]) == 0
    assert without([a, b, c], []) == [a, b, c]
    assert without([a, b, c], [0, 2]) == [b]


def test_a_marked_only_scan_tests_only_messages_with_tags_or_tool_calls() -> None:
    tested: list[str | None] = []

    def hidden_or_calling(message: ContextMessage) -> bool:
        tested.append(message.entry_id)
        return "hidden" in message.tags or bool(message.tool_calls)

    history = [_message(n) for n in range(1, 11)]
    history.append(ContextMessage("assistant", "", "调用", tool_calls=[{"id": "c1", "name": "lorebook_search"}]))
    scan = MessageScan(hidden_or_calling, marked_only=True)
    assert scan(history) == [index for index, message in enumerate(history) if hidden_or_calling(message)]
    marked = [m.entry_id for m in history if m.tags or m.tool_calls]
    assert tested[: len(marked)] == marked  # the scan's own calls: the marked messages, in order
