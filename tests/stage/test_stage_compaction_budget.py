"""A side request has a budget: compaction of a long history covers the oldest whole beats that
fit and says how many are still due; scene notes cut the beat's lines to fit (pure core)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.stage.memory.compaction import fit_lines, plan_compaction, summary_user_text
from peargarden.stage.memory.story import StoryItem
from peargarden.text.tokens import EstimateCounter


def _history(beats: int, reply: str = "雨一直下，" * 40) -> list[StoryItem]:
    items: list[StoryItem] = []
    for n in range(beats):
        items.append(StoryItem(f"u{n}", {"role": "user", "content": f"第{n}句：往前走。"}))
        items.append(StoryItem(f"a{n}", {"role": "assistant", "content": f"第{n}拍：{reply}"}))
    return items


def test_without_a_budget_everything_due_is_covered() -> None:
    plan = plan_compaction(_history(50), keep_rounds=6, every=30)
    assert plan is not None and plan.turns == 44 and plan.remaining_turns == 0


def test_a_budget_covers_the_oldest_whole_beats_that_fit_and_says_what_is_left() -> None:
    count = EstimateCounter()
    history = _history(50)
    plan = plan_compaction(history, keep_rounds=6, every=30, budget=2000, count=count)
    assert plan is not None and 0 < plan.turns < 44 and plan.turns + plan.remaining_turns == 44
    assert plan.covered[-1].role == "assistant"  # whole beats: a user line is never left alone
    text = summary_user_text("", None, plan, "阿远", "青梧", budget=2000, count=count)
    assert count(text) <= 2000 + 50
    # The next step starts where this one ended and covers the next part.
    rest = history[len(plan.covered) :]
    following = plan_compaction(rest, keep_rounds=6, every=1, budget=2000, count=count)
    assert following is not None and following.covered[0].entry_id == f"u{plan.turns}"
    assert following.remaining_turns == plan.remaining_turns - following.turns


def test_one_beat_longer_than_the_budget_is_covered_alone_and_cut_in_the_middle() -> None:
    count = EstimateCounter()
    huge = "长夜漫漫，" * 4000
    history = _history(10, reply=huge)
    plan = plan_compaction(history, keep_rounds=2, every=1, budget=1000, count=count)
    assert plan is not None and plan.turns == 1 and plan.remaining_turns == 7
    text = summary_user_text("", None, plan, "阿远", "青梧", budget=1000, count=count)
    assert count(text) <= 1100 and "……（中间略去）……" in text
    assert text.rstrip().endswith("长夜漫漫，")  # its end is kept: the newest part of the beat


def test_fit_lines_keeps_the_newest_lines_in_order() -> None:
    count = EstimateCounter()
    lines = [f"阿远：第{n}句话，" + "很长的话。" * 20 for n in range(30)]
    kept = fit_lines(lines, 300, count)
    assert kept == lines[-len(kept) :] and 0 < len(kept) < 30
    assert sum(count(line) + 2 for line in kept) <= 300



def _whole_list_plan(live: list[StoryItem], keep: int, min_chars: int, budget: int) -> tuple[int, int, int, int] | None:
    """A plan's (covered items, turns, characters, remaining turns) by its definition, reading every
    due item (None when nothing is due or it is too short)."""
    count = EstimateCounter()
    users = [i for i, item in enumerate(live) if item.role == "user"]
    if len(users) <= keep:
        return None
    due = live[: users[-keep] if keep > 0 else len(live)]
    chars = [len(str(item.message.get("content") or "")) for item in due]
    if not due or sum(chars) < min_chars:
        return None
    starts = [0, *[i for i in users if 0 < i < len(due)]]
    ends = [*starts[1:], len(due)]
    used, end = 0, ends[0]
    for index, (start, stop) in enumerate(zip(starts, ends, strict=True)):
        used += count("\n\n".join(str(item.message.get("content") or "") for item in due[start:stop])) + 8
        if used > budget and index > 0:
            break
        end = stop
    turns = sum(1 for item in due[:end] if item.role == "user")
    return end, turns, sum(chars[:end]), sum(1 for item in due[end:] if item.role == "user")


@settings(max_examples=examples(300), deadline=None)
@given(
    shape=st.lists(st.tuples(st.sampled_from(["user", "assistant", "tool"]), st.integers(0, 400)), max_size=60),
    keep=st.integers(0, 4),
    budget=st.integers(1, 3000),
    min_chars=st.integers(1, 3000),
)
def test_a_plan_read_up_to_its_budget_is_the_whole_lists_plan(
    shape: list[tuple[str, int]], keep: int, budget: int, min_chars: int
) -> None:
    """``plan_compaction`` reads the due items only up to the budget and counts the rest from the
    user indices: the same plan as reading them all (whole beats, progress, what is left)."""
    live = [StoryItem(f"e{n}", {"role": role, "content": "雨" * size}) for n, (role, size) in enumerate(shape)]
    plan = plan_compaction(live, keep_rounds=keep, every=1, min_chars=min_chars, budget=budget, count=EstimateCounter())
    got = None if plan is None else (len(plan.covered), plan.turns, plan.chars, plan.remaining_turns)
    assert got == _whole_list_plan(live, keep, min_chars, budget)
