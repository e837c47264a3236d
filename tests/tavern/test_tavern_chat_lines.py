"""Tavern mode keeps each message's SillyTavern line between beats: the lines are the same as made
afresh, beat after beat, and the one line the assembly writes to is never shared."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.modes.tavern.setup import StLines, _st_line
from peargarden.sessions.context import ContextMessage

MESSAGE = st.builds(
    ContextMessage,
    role=st.sampled_from(["user", "assistant", "tool", "system"]),
    content=st.sampled_from(["", "  ", "掌柜，今天有什么茶？", "青梧放下茶盏，望向窗外的河。", "\ud800孤"]),
    entry_id=st.sampled_from([None, "0000000a", "0000000b"]),
    name=st.sampled_from([None, "怀瑾"]),
    tags=st.sampled_from([[], ["hidden"], ["greeting"]]),
)


def fresh(history: list[ContextMessage], user: str, char: str) -> list[dict[str, object]]:
    return [line for m in history if (line := _st_line(m, user, char)) is not None]


@settings(max_examples=examples(150), deadline=None)
@given(
    start=st.lists(MESSAGE, max_size=30),
    more=st.lists(MESSAGE, max_size=5),
    cut=st.integers(0, 30),
    user=st.sampled_from(["旅人", "阿梨"]),
)
def test_kept_lines_equal_fresh_lines_beat_after_beat(
    start: list[ContextMessage], more: list[ContextMessage], cut: int, user: str
) -> None:
    kept = StLines()
    beats = [start, start + more, start[:cut] + more]  # the chat grows, then a branch from earlier
    for number, history in enumerate(beats):
        name = user if number < 2 else "另一位"  # a persona switch renames the user's lines
        lines = kept.lines(history, name, "青梧")
        assert lines == fresh(history, name, "青梧")
        if lines:
            lines[0]["mes"] = "（被改写的开场白）"  # what the assembly does to the first line
            lines[0]["extra"]["marked"] = True


def test_a_long_chinese_chat_reuses_its_lines_and_copies_the_first() -> None:
    history = [
        ContextMessage("user" if i % 2 else "assistant", f"第{i}条：掌柜可还记得镇北渡口？", f"{i:08x}")
        for i in range(20_000)
    ]
    kept = StLines()
    first = kept.lines(history, "旅人", "青梧")
    first[0]["mes"] = "改过"
    second = kept.lines([*history, ContextMessage("user", "再来一壶。", "ffffffff")], "旅人", "青梧")
    assert second[0]["mes"] == "第0条：掌柜可还记得镇北渡口？" and second[0] is not first[0]
    assert second[1] is first[1] and second[-2] is first[-1]  # made once, kept
    assert second == fresh([*history, ContextMessage("user", "再来一壶。", "ffffffff")], "旅人", "青梧")
