"""World-info probability follows SillyTavern's rule, ``Math.random() * 100 <= probability``.

A replay injects its rolls (the case's ``"rolls"``); live assembly rolls real, seedable numbers.
Probability 0 never activates, whatever the roll (``Math.random()`` is below 1 and our live rolls
are never exactly 0).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from test_tavern_oracle import CASES, load

from peargarden.tavern.replay import CaseData, case_rolls, replay
from peargarden.text.rolls import live_random

CASE = CASES / "12-wi-keywords-scandepth-constant-order"
CITY = "Hangzhou (杭州) is the capital"
SPRING = "[World note: it is early spring.]"


def _case(rolls: list[float], city: int, spring: int) -> CaseData:
    case = load(CASE)
    book = case.worlds["Hangzhou Lore"]["entries"]
    book["4"].update(useProbability=True, probability=city)
    book["5"].update(useProbability=True, probability=spring)
    case.settings = {**copy.deepcopy(case.settings), "rolls": rolls}
    return case


def _sent(case: CaseData) -> str:
    result = replay(case)
    assert result.body is not None
    return json.dumps(result.body["messages"], ensure_ascii=False)


@pytest.mark.parametrize(
    ("roll", "probability", "active"),
    [(0.3, 30, True), (0.31, 30, False), (0.0, 30, True), (0.999, 99, False), (0.99, 99, True)],
)
def test_replay_roll_against_probability(roll: float, probability: int, active: bool) -> None:
    sent = _sent(_case([roll], probability, 100))
    assert (CITY in sent) is active
    assert SPRING in sent  # probability 100 needs no roll


@pytest.mark.parametrize("roll", [0.0, 1e-12, 0.5])
def test_probability_zero_never_activates(roll: float) -> None:
    sent = _sent(_case([roll], 100, 0))
    assert SPRING not in sent and CITY in sent


def test_unchanged_case_still_matches_sillytavern() -> None:
    expected = json.loads((CASE / "expected.json").read_text(encoding="utf-8"))
    result = replay(load(CASE))
    assert result.body == expected


def test_case_rolls_cycle_and_ignore_junk() -> None:
    roll = case_rolls({"rolls": [0.25, "x", 2, 0.75]})
    assert [roll() for _ in range(5)] == [0.25, 0.75, 0.25, 0.75, 0.25]
    assert case_rolls({})() == 0.0


def test_live_rolls_are_open_interval_and_seedable() -> None:
    first, again = live_random(7), live_random(7)
    rolls = [first() for _ in range(2000)]
    assert rolls == [again() for _ in range(2000)]
    assert all(0.0 < r < 1.0 for r in rolls)
    # Real numbers: spread over the interval, not one constant.
    assert min(rolls) < 0.05 and max(rolls) > 0.95


def test_live_probability_share_matches_the_rule(tmp_path: Path) -> None:
    """Over many live generations a 30 % entry is in about 30 % of them (and 0 % never)."""
    from peargarden.tavern.assemble import generate
    from peargarden.tavern.replay import build_state

    case = _case([0.5], 30, 0)
    hits = 0
    runs = 300
    source = live_random(2026)
    for _ in range(runs):
        state = build_state(case)
        state.random = source
        text = json.dumps(generate(state, "normal", dry_run=True).messages, ensure_ascii=False)
        assert SPRING not in text
        hits += CITY in text
    assert 0.2 * runs < hits < 0.4 * runs
