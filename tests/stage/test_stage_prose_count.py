"""``StoryProse.count_turns`` remembers its count and derives only the messages between the point it
counted last time and the new one — forward when the chat grew, backward when a budgeted window
reaches further back — and always equals the count of a plain derivation, across branches too."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

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


@settings(max_examples=150, deadline=None)
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
        def _derive(self, messages, *, prune):  # type: ignore[no-untyped-def]
            derived.append(len(messages))
            return super()._derive(messages, prune=prune)

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
