"""How many examples a property test draws: the count written in the test, or a third of it.

The counts in the tests (``@settings(max_examples=examples(300))``) are what CI runs
(``PEARGARDEN_EXAMPLES=all``, set by ``.ci/run``) and what a plain ``pytest`` runs.  ``scripts/test.sh``
runs a third of each (``PEARGARDEN_EXAMPLES=quick``, at least 20) unless told otherwise: the property
tests were a tenth of the suite's CPU, and most of a property's failures show in its first examples
(Hypothesis also starts each run from the failures it saved).  Every commit that lands has had the
full counts in CI.
"""

from __future__ import annotations

import os

QUICK = os.environ.get("PEARGARDEN_EXAMPLES", "all") == "quick"
FLOOR = 20


def examples(count: int, *, quick: bool = QUICK) -> int:
    """*count* examples, or a third of them (never fewer than ``FLOOR``) in a quick run."""
    return max(min(count, FLOOR), count // 3) if quick else count
