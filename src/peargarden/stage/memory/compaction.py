"""Compaction of a long story: where to cut, when to do it, and the relay-summary prompt (spec §9.6).

The story after the active summary is counted in beats (user messages).  When there are at least
``keep_rounds + every`` of them (``every`` = 0: never by count) or the history is over its token
budget, everything before the ``keep_rounds``-th last user message is covered by a new summary,
which takes the previous one as input (summaries chain).  The originals stay in the session: a
summary only records the last entry it covers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from .ledger import Ledger
from .story import StoryItem, dialogue_lines, user_indices

__all__ = [
    "AUTO_MIN_CHARS",
    "KEEP_RECENT_ROUNDS",
    "MANUAL_MIN_CHARS",
    "SUMMARY_MAX_TOKENS",
    "SUMMARY_SYSTEM",
    "CompactionPlan",
    "plan_compaction",
    "summary_user_text",
]

KEEP_RECENT_ROUNDS = 6
AUTO_MIN_CHARS = 2000
MANUAL_MIN_CHARS = 500
SUMMARY_MAX_TOKENS = 4096


@dataclass(frozen=True)
class CompactionPlan:
    covered: tuple[StoryItem, ...]
    covers_through_id: str
    turns: int
    chars: int


def plan_compaction(
    live: Sequence[StoryItem],
    *,
    keep_rounds: int = KEEP_RECENT_ROUNDS,
    every: int = 30,
    over_budget: bool = False,
    min_chars: int = AUTO_MIN_CHARS,
) -> CompactionPlan | None:
    """What to summarise among *live* (the story items after the active summary), or ``None``.

    By count: ``len(user messages) >= keep_rounds + every`` (with ``every > 0``).  By budget:
    *over_budget* and something older than the kept rounds exists.  Either way the covered text
    must reach *min_chars*, so a few short lines never become a summary."""
    users = user_indices(live)
    by_count = every > 0 and len(users) >= keep_rounds + every
    if not (by_count or over_budget) or len(users) <= keep_rounds:
        return None
    cut = users[-keep_rounds] if keep_rounds > 0 else len(live)
    covered = tuple(live[:cut])
    if not covered:
        return None
    chars = sum(len(str(item.message.get("content") or "")) for item in covered)
    if chars < min_chars:
        return None
    turns = sum(1 for item in covered if item.role == "user")
    return CompactionPlan(covered, covered[-1].entry_id, turns, chars)


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
    previous: str, ledger: Ledger | None, plan: CompactionPlan, user_name: str, char_name: str
) -> str:
    parts = ["【要覆盖的对话】\n" + "\n\n".join(dialogue_lines(plan.covered, user_name, char_name))]
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
