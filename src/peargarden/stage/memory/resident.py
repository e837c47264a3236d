"""The card's resident memory in the 【前情提要】 message (spec §9.5, read side).

It shares an envelope with the summary, the state and the roster: its budget is
``min(1200, 4300 − len(summary) − len(state) − len(roster))``; a longer text is cut at a paragraph
boundary and marked, and when fewer than 200 characters would remain it is left out.
"""

from __future__ import annotations

__all__ = ["RESIDENT_MAX", "resident_block", "resident_budget"]

RESIDENT_MAX = 1200
ENVELOPE = 4300
MIN_USEFUL = 200
CUT_MARK = "（……余下内容因篇幅略）"


def resident_budget(summary: str, state: str, roster: str) -> int:
    return min(RESIDENT_MAX, ENVELOPE - len(summary) - len(state) - len(roster))


def resident_block(text: str, budget: int) -> str:
    text = text.strip()
    if not text:
        return ""
    if len(text) <= budget:
        return text
    room = budget - len(CUT_MARK)
    if room < MIN_USEFUL:
        return ""
    cut = text.rfind("\n\n", 0, room)
    if cut < MIN_USEFUL:
        cut = text.rfind("\n", 0, room)
    if cut < MIN_USEFUL:
        cut = room
    return text[:cut].rstrip() + "\n" + CUT_MARK
