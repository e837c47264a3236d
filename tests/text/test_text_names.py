"""The near names a "no such …" message offers for a mistyped card, preset or lorebook name."""

from __future__ import annotations

from peargarden.text.names import did_you_mean, near_names

CARDS = ["青梧", "Seraphina", "沈砚", "青梧-2"]


def test_letter_case_a_chinese_prefix_and_a_typo_find_the_name() -> None:
    assert near_names("seraphina", CARDS) == ["Seraphina"]
    assert near_names("Serafina", CARDS) == ["Seraphina"]
    assert near_names("青", CARDS) == ["青梧", "青梧-2"]  # the shorter name first
    assert near_names("Defualt", ["Default", "Default-2", "写实"]) == ["Default", "Default-2"]


def test_nothing_near_says_nothing() -> None:
    assert near_names("完全不同", CARDS) == []
    assert near_names("  ", CARDS) == []
    assert did_you_mean("完全不同", CARDS) == ""
    assert did_you_mean("青", CARDS) == "；是不是想找：「青梧」、「青梧-2」（did you mean）"


def test_at_most_three_are_named() -> None:
    names = [f"栖水镇{n}" for n in range(10)]
    assert len(near_names("栖水镇", names)) == 3
