"""Compaction of a long story: where to cut, when to do it, and the relay-summary prompt (spec §9.6).

The story after the active summary is counted in beats (user messages).  When there are at least
``keep_rounds + every`` of them (``every`` = 0: never by count) or the history is over its token
budget, everything before the ``keep_rounds``-th last user message is due for a new summary, which
takes the previous one as input (summaries chain).  The originals stay in the session: a summary
only records the last entry it covers.

A side request has a budget too (the side model's context, less its reply): when what is due does
not fit — a long imported chat, thousands of turns never summarised — a plan covers only the
oldest whole beats that fit, and says how many beats are still due, so compaction proceeds in
bounded steps (one per beat, or all of them on request) and each says how far it got.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import msgspec

from peargarden.text.tokens import TextCounter

from .ledger import Ledger
from .story import StoryItem, dialogue_lines, user_indices

__all__ = [
    "AUTO_MIN_CHARS",
    "KEEP_RECENT_ROUNDS",
    "MANUAL_MIN_CHARS",
    "SUMMARY_MAX_TOKENS",
    "SUMMARY_SYSTEM",
    "CompactionPlan",
    "fit_lines",
    "plan_compaction",
    "summary_user_text",
]

KEEP_RECENT_ROUNDS = 6
AUTO_MIN_CHARS = 2000
MANUAL_MIN_CHARS = 500
SUMMARY_MAX_TOKENS = 4096


class CompactionPlan(msgspec.Struct, frozen=True):
    covered: tuple[StoryItem, ...]
    covers_through_id: str
    turns: int
    chars: int
    # Beats that were due but did not fit this request's budget: the next step covers them.
    remaining_turns: int = 0


def plan_compaction(
    live: Sequence[StoryItem],
    *,
    keep_rounds: int = KEEP_RECENT_ROUNDS,
    every: int = 30,
    over_budget: bool = False,
    min_chars: int = AUTO_MIN_CHARS,
    budget: int | None = None,
    count: TextCounter | None = None,
    skipped_users: int = 0,
) -> CompactionPlan | None:
    """What to summarise among *live* (the story items after the active summary), or ``None``.

    By count: ``len(user messages) >= keep_rounds + every`` (with ``every > 0``).  By budget:
    *over_budget* and something older than the kept rounds exists.  Either way the covered text
    must reach *min_chars*, so a few short lines never become a summary.  *budget*: the tokens
    (by *count*) the covered dialogue may take in the request; what is due past it is left for the
    next step (``remaining_turns``), and a first beat longer than the budget alone is covered all
    the same (its lines are cut to the budget when the request is written).

    *skipped_users*: user items of the story left out of *live* between its head and its tail (a
    caller that read only both ends of a long history; the plan must then end inside the head)."""
    users = user_indices(live)
    total = len(users) + skipped_users
    by_count = every > 0 and total >= keep_rounds + every
    if not (by_count or over_budget) or total <= keep_rounds:
        return None
    cut = users[-keep_rounds] if keep_rounds > 0 else len(live)
    due = tuple(live[:cut])
    if not due:
        return None
    if not _reaches(due, min_chars):
        return None  # what is due is not worth a summary yet (however much of it fits)
    covered = due if budget is None or count is None else _fitting(due, budget, count)
    chars = sum(len(str(item.message.get("content") or "")) for item in covered)
    turns = sum(1 for item in covered if item.role == "user")
    # The user items of *due* are those before the kept rounds; the covered ones are a prefix of them
    # (counted from *users*: a long import's thousands of due beats are not read again).
    remaining = total - max(keep_rounds, 0) - turns
    return CompactionPlan(covered, covered[-1].entry_id, turns, chars, remaining)


def _reaches(due: Sequence[StoryItem], min_chars: int) -> bool:
    """Whether the contents of *due* reach *min_chars* characters (stops as soon as they do)."""
    total = 0
    for item in due:
        total += len(str(item.message.get("content") or ""))
        if total >= min_chars:
            return True
    return total >= min_chars


def _fitting(due: tuple[StoryItem, ...], budget: int, count: TextCounter) -> tuple[StoryItem, ...]:
    """The longest run of whole beats from the start of *due* whose dialogue fits *budget* (at
    least the first beat: a step always makes progress).  A beat starts at each user item (and at
    the first item); only the beats up to the budget are read."""
    used = 0
    start = 0
    end = 0
    for stop in range(1, len(due) + 1):
        if stop < len(due) and due[stop].role != "user":
            continue
        text = "\n\n".join(str(item.message.get("content") or "") for item in due[start:stop])
        used += count(text) + 8  # a speaker's name and the blank line between turns
        if used > budget and start > 0:
            break
        end = start = stop
    return due[:end]


def fit_lines(lines: Sequence[str], budget: int, count: TextCounter) -> list[str]:
    """*lines* cut to *budget* tokens: whole lines from the end first (the newest matter most for a
    ledger, the order is kept), and a single line over the budget cut in the middle, with a mark."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = count(line) + 2
        if used + cost > budget:
            if not kept:
                kept.append(_cut_middle(line, budget, count))
            break
        kept.append(line)
        used += cost
    return kept[::-1]


def _cut_middle(text: str, budget: int, count: TextCounter) -> str:
    """*text* shortened to about *budget* tokens by keeping its start and its end."""
    total = max(1, count(text))
    keep = max(16, int(len(text) * budget / total * 0.9) // 2)
    return text[:keep] + "\n……（中间略去）……\n" + text[-keep:]


SUMMARY_SYSTEM = """你是这场角色扮演的接力摘要员。你不续写故事，只输出摘要本身。
把【要覆盖的对话】（以及之前的摘要，如果有）写成一份接力摘要，让接手的人不看原文也能无缝写下去。
用下面五个小节（Markdown 二级标题）：
## 前情提要
按时间顺序写发生了什么，保留剧情内的时间标记。
## 人物
性格、说话习惯、怎么称呼用户、关系的变化。
## 承诺与伏笔
答应过的事、埋下的线索，宁多勿漏。
## 事实账
归属、伤势、数字、第几天。
## 当前场景
必须是对话里最新的场景。
只写发生过的事，不要编造；账本只作参考，与对话冲突时以对话为准。"""


def summary_user_text(
    previous: str,
    ledger: Ledger | None,
    plan: CompactionPlan,
    user_name: str,
    char_name: str,
    *,
    budget: int | None = None,
    count: TextCounter | None = None,
) -> str:
    lines = dialogue_lines(plan.covered, user_name, char_name)
    if budget is not None and count is not None:
        lines = fit_lines(lines, budget, count)
    parts = ["【要覆盖的对话】\n" + "\n\n".join(lines)]
    if previous.strip():
        parts.append(
            "<previous-summary>\n"
            + previous.strip()
            + "\n</previous-summary>\n新的摘要要保留之前摘要里的信息，再加上新的进展。"
        )
    if ledger is not None and not ledger.empty:
        state = {key: value for key, value in ledger.to_json().items() if key != "roster"}
        parts.append("【账本快照（参考）】\n" + json.dumps(state, ensure_ascii=False))
    return "\n\n".join(parts)
