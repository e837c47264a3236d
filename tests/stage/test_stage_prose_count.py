"""``StoryProse.count_turns`` remembers its count and derives only the messages between the point it
counted last time and the new one — forward when the chat grew, backward when a budgeted window
reaches further back — and always equals the count of a plain derivation, across branches too."""

from __future__ import annotations

import json

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.modes.stage.prose import StoryProse, message_view
from peargarden.sessions.context import ContextMessage
from peargarden.stage.history import story_turns

REPLIES = ["青梧放下茶盏：“记得。”", "", "雨下大了，听雨轩的灯一盏盏亮起来。", "他走的那天，渡口的柳树才抽芽。"]


def beats(picks: list[int], tag: str) -> list[ContextMessage]:
    out: list[ContextMessage] = []
    for n, pick in enumerate(picks):
        out.append(ContextMessage("user", f"掌柜可还记得怀瑾公子？（{tag}{n}）", f"u{tag}{n}"))
        out.append(ContextMessage("assistant", REPLIES[pick % 4] and f"{REPLIES[pick % 4]}（{n}）", f"a{tag}{n}"))
        if pick == 4:
            out.append(ContextMessage("assistant", f"又及：{n}", f"b{tag}{n}"))
        if pick == 5:
            out.append(ContextMessage("system", "（旁白）", f"s{tag}{n}"))
    return out


def plain(messages: list[ContextMessage], end: int) -> int:
    return len(story_turns([message_view(m) for m in messages[:end]]))


@settings(max_examples=examples(150), deadline=None)
@given(
    picks=st.lists(st.integers(0, 5), min_size=1, max_size=80),
    steps=st.lists(st.tuples(st.sampled_from(["grow", "branch", "same"]), st.integers(0, 200)), max_size=12),
)
def test_the_count_equals_a_plain_derivation_at_any_point(picks: list[int], steps: list[tuple[str, int]]) -> None:
    prose = StoryProse()
    messages = beats(picks, "甲")
    for number, (kind, pick) in enumerate(steps):
        if kind == "grow":
            messages = messages + beats([pick % 6, (pick // 6) % 6], f"长{number}")
        elif kind == "branch":
            users = [i for i, m in enumerate(messages) if m.role == "user"]
            messages = messages[: users[pick % len(users)]] + beats([pick % 6], f"岔{number}")
        users = [i for i, m in enumerate(messages) if m.role == "user"]
        end = users[(pick * 7) % len(users)]  # a beat boundary, before or after the last one counted
        assert prose.count_turns(messages, end) == plain(messages, end)


def test_a_window_reaching_back_derives_only_the_messages_it_reaches_back_over() -> None:
    derived: list[int] = []

    class Counting(StoryProse):
        def _count(self, messages):  # type: ignore[no-untyped-def]
            derived.append(len(messages))
            return super()._count(messages)

    prose = Counting()
    messages = beats([n % 6 for n in range(3000)], "")
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    assert prose.count_turns(messages, users[2900]) == plain(messages, users[2900])
    derived.clear()
    assert prose.count_turns(messages, users[2890]) == plain(messages, users[2890])  # reaches 10 beats back
    assert derived == [users[2900] - users[2890]]
    derived.clear()
    grown = messages + beats([1, 2], "新")
    assert prose.count_turns(grown, users[2895]) == plain(grown, users[2895])  # then forward again
    assert derived == [users[2895] - users[2890]]


def _call(call_id: str, name: str, **arguments: object) -> dict[str, object]:
    return {"id": call_id, "name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}


# Messages of every kind a beat holds: plain text, blank text (spaces, newlines, a full-width space),
# draft tool calls (one refused by its tool result), a fork question, a tool result, a system line.
PALETTE = [
    ContextMessage("user", "掌柜可还记得怀瑾公子？"),
    ContextMessage("assistant", "青梧放下茶盏：“记得。”"),
    ContextMessage("assistant", ""),
    ContextMessage("assistant", " \n\t"),
    ContextMessage("assistant", "\u3000"),
    ContextMessage("assistant", "", tool_calls=[_call("c1", "draft_write", content="雨下大了。")]),
    ContextMessage("assistant", "旁白", tool_calls=[_call("c2", "draft_append", content="灯亮了。")]),
    ContextMessage("tool", "追加失败", tool_call_id="c2", is_error=True),
    ContextMessage("assistant", "", tool_calls=[_call("c3", "draft_seal")]),
    ContextMessage("assistant", "", tool_calls=[_call("c4", "ask", question="追问吗？", options=["追问", "作罢"])]),
    ContextMessage("assistant", "", tool_calls=[_call("c5", "draft_write", content="")]),
    ContextMessage("tool", "好", tool_call_id="c1"),
    ContextMessage("system", "（旁白）"),
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.integers(0, len(PALETTE) - 1), max_size=40))
def test_a_count_without_prose_equals_the_derived_turns(picks: list[int]) -> None:
    """``_count`` replays only beats with tool calls; it counts what ``story_turns`` gives."""
    messages = [msgspec.structs.replace(PALETTE[pick], entry_id=f"e{n}") for n, pick in enumerate(picks)]
    assert StoryProse()._count(messages) == len(story_turns([message_view(m) for m in messages]))
