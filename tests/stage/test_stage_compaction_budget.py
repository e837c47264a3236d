"""A side request has a budget: compaction of a long history covers the oldest whole beats that
fit and says how many are still due; scene notes cut the beat's lines to fit (pure core)."""

from __future__ import annotations

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
