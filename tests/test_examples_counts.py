"""The quick run's example counts (tests/kit/examples.py), and that every property test goes through them."""

from __future__ import annotations

import re
from pathlib import Path

from kit.examples import FLOOR, examples

TESTS = Path(__file__).parent


def test_a_quick_run_draws_a_third_never_below_the_floor_and_a_full_run_all() -> None:
    assert [examples(n, quick=True) for n in (500, 300, 100, 60, 40, 10)] == [166, 100, 33, 20, 20, 10]
    assert [examples(n, quick=False) for n in (500, 300, 100, 60, 40, 10)] == [500, 300, 100, 60, 40, 10]
    assert FLOOR == 20


def test_every_count_a_test_names_goes_through_examples() -> None:
    # A literal count would run in full in the quick run too, and the quick run would stop meaning a third.
    literal = re.compile(r"max_examples\s*=\s*\d")
    offenders = [
        f"{path.relative_to(TESTS)}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert offenders == []
