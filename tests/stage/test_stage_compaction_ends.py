"""The compaction plan read at the history's two ends (modes/stage/compaction_ends.py) is the plan of
the whole story after the summary whenever it decides one, and on a long history never summarised it
decides without decoding the middle's messages."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.modes.stage import compaction_ends, story_count
from peargarden.modes.stage.compaction_ends import plan_from_ends
from peargarden.modes.stage.story_count import story_users
from peargarden.sessions import Entry, entry_line, message_entry
from peargarden.sessions.context import build_context
from peargarden.stage.memory.compaction import plan_compaction
from peargarden.stage.memory.story import story_since, tokens_over
from peargarden.text.tokens import EstimateCounter

COUNT = EstimateCounter()
DRAFT = {"id": "c1", "name": "draft_write", "arguments": '{"content": "雨夜，渡口。"}'}
KINDS: dict[str, dict[str, Any]] = {
    "user": {"role": "user", "content": "掌柜可还记得怀瑾公子？"},
    "assistant": {"role": "assistant", "content": "青梧放下茶盏，望向窗外的河。" * 3},
    "long": {"role": "assistant", "content": "那年也是这样的雨天，" * 40},
    "blank": {"role": "assistant", "content": ""},
    "hidden": {"role": "user", "content": "（悄悄话）", "tags": ["hidden"]},
    "work": {"role": "user", "content": "改一下卡", "tags": ["work"]},
    "draft": {"role": "assistant", "content": "", "tool_calls": [DRAFT]},
    "tool": {"role": "tool", "content": "好", "tool_call_id": "c1"},
}


def _entries(kinds: list[str]) -> list[Entry]:
    """Message entries as a session file's read gives them: bodies not decoded yet."""
    out: list[Entry] = []
    parent = None
    for number, kind in enumerate(kinds):
        made = message_entry(f"{number:08x}", parent, "2026-12-03T00:00:00.000Z", dict(KINDS[kind]))
        line = entry_line(made).encode()
        out.append(Entry(made.id, made.parent_id, "message", made.timestamp, None, line))
        parent = made.id
    return out


def _whole(entries: list[Entry], covers: str | None, keep: int, every: int, budget: int, limit: int) -> Any:
    live = story_since(entries, covers)
    over = tokens_over(live, COUNT, limit)
    return plan_compaction(live, keep_rounds=keep, every=every, over_budget=over, min_chars=1 if over else 2000,
                           budget=budget, count=COUNT)  # fmt: skip


def _ends(entries: list[Entry], covers: str | None, keep: int, every: int, budget: int, limit: int) -> Any:
    return plan_from_ends(entries, covers, keep_rounds=keep, every=every, min_chars_over=1, min_chars=2000,
                          budget=budget, count=COUNT, limit=limit)  # fmt: skip


# A beat: the message that opens it (a user's three times in five), then one to three replies (each
# length a third of the time; an assistant's reply two times in six).  Every such beat is one entry of
# BEATS, as often as those odds make it, so that a beat is one choice, not a list drawn kind by kind:
# the same histories for a sixth of the draws, which were most of this test's time.
_OPENERS = ["user", "user", "user", "hidden", "work"]
_KINDS = ["assistant", "assistant", "long", "blank", "draft", "tool"]
BEATS = [
    (opener, *replies)
    for opener in _OPENERS
    for n in (1, 2, 3)
    for replies in itertools.product(_KINDS, repeat=n)
    for _ in range(len(_KINDS) ** (3 - n))
]


@settings(max_examples=examples(300), deadline=None)
@given(
    beats=st.lists(st.sampled_from(BEATS), min_size=20, max_size=60),
    covers=st.one_of(st.none(), st.integers(0, 40), st.just("不在分支上")),
    keep=st.integers(0, 4),
    every=st.sampled_from([0, 1, 5, 30]),
    budget=st.integers(20, 2500),
    limit=st.integers(20, 1500),
)
def test_a_plan_from_the_ends_is_the_whole_storys_plan(
    beats: list[tuple[str, ...]],
    covers: int | str | None,
    keep: int,
    every: int,
    budget: int,
    limit: int,
) -> None:
    kinds = [kind for beat in beats for kind in beat]
    entries = _entries(kinds)
    covered = entries[covers % len(entries)].id if isinstance(covers, int) else covers
    with pytest.MonkeyPatch.context() as patch:  # small ends, so that short histories have a middle
        patch.setattr(compaction_ends, "HEAD_SIZES", (8, 32))
        patch.setattr(compaction_ends, "TAIL_MESSAGES", 12)
        decided = _ends(entries, covered, keep, every, budget, limit)
    event("decided" if decided is not None else "left to the whole story")
    assert decided is None or decided == _whole(entries, covered, keep, every, budget, limit)


def test_a_long_history_is_planned_without_decoding_its_middle() -> None:
    entries = _entries(["user", "assistant"] * 5000)
    plan = _ends(entries, None, 6, 30, 2000, 14336)
    assert plan is not None and 0 < plan.turns < 100
    assert plan == _whole(_entries(["user", "assistant"] * 5000), None, 6, 30, 2000, 14336)
    assert plan.remaining_turns == 5000 - 6 - plan.turns
    middle = entries[max(compaction_ends.HEAD_SIZES) : -compaction_ends.TAIL_MESSAGES]
    assert all(entry.raw_line() is not None for entry in middle)  # never decoded


def test_a_history_with_work_beats_in_the_middle_counts_them_out() -> None:
    kinds = ["user", "assistant"] * 2000 + ["work", "draft", "tool"] * 10 + ["user", "assistant"] * 2000
    entries = _entries(kinds)
    plan = _ends(entries, None, 6, 30, 2000, 14336)
    assert plan is not None and plan == _whole(_entries(kinds), None, 6, 30, 2000, 14336)
    assert plan.remaining_turns == 4000 - 6 - plan.turns


def test_the_middle_is_counted_from_what_the_context_noted_as_from_the_lines() -> None:
    """A beat builds the context first (each line decoded once, its role, tags and tool calls noted on
    the entry); the count of the middle's user turns then reads those notes, and plans the same."""
    kinds = ["user", "assistant", "hidden", "blank"] * 1500 + ["work", "draft", "tool"] * 3 + ["user", "long"] * 1500
    from_lines = _entries(kinds)
    noted = _entries(kinds)
    build_context(noted)
    for entry, kind in zip(noted, kinds, strict=True):
        message = KINDS[kind]
        assert entry.shape == (message["role"], tuple(message.get("tags", ())), "tool_calls" in message)
    counted = story_users(from_lines)
    assert counted == 3000  # the hidden and work-mode user messages are not story turns
    with pytest.MonkeyPatch.context() as patch:  # no line is decoded again
        patch.setattr(story_count, "_SHAPE", None)
        assert story_users(noted) == counted
    assert _ends(noted, None, 6, 30, 2000, 14336) == _ends(from_lines, None, 6, 30, 2000, 14336) is not None
