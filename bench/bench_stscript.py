"""Benchmark: STscript loops — a 10,000-round ``/while`` and a 100-round ``/times`` body of ten commands.

Run from the repository root::

    .venv/bin/python bench/bench_stscript.py [--runs 5]

Each run parses and runs the script on a fresh chat (the state of the recorded cases' common card,
settings and preset, through the same host ``pear slash replay`` uses) and reports the process CPU
time it took (``time.process_time``), median and spread over the runs, and the commands run per
second of CPU.  Every round substitutes its arguments (macros included) and writes a chat variable,
as SillyTavern does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from peargarden.formats import card_to_object, read_card
from peargarden.stscript.commands import default_registry
from peargarden.stscript.runtime import Interpreter, run_script
from peargarden.tavern.replay import CaseData, build_state
from peargarden.tavern.slash_host import TavernSlashHost

COMMON = Path(__file__).resolve().parent.parent / "tests" / "stscript" / "common"

SCRIPTS = {
    "while 10,000": (
        "/setvar key=i 0 | /while left=i right=10000 rule=lt guard=off {: /incvar i :} | /getvar i",
        10_000 * 2 + 2,  # each round: the comparison's command and /incvar
        "10000",
    ),
    "times 100 × 10 commands": (
        "/setvar key=s 0 | /times 100 {: /addvar key=s 1 | /let a {{timesIndex}} | /var a 2 | /add a 3 | "
        "/mul {{pipe}} 2 | /upper 梨园abc | /len {{pipe}} | /setvar key=t {{pipe}} | /getvar s | "
        "/pass {{pipe}} :} | /getvar s",
        100 * 10 + 3,
        "100",
    ),
}


def host() -> TavernSlashHost:
    settings = json.loads((COMMON / "settings.json").read_text(encoding="utf-8"))
    preset = json.loads((COMMON / "preset.json").read_text(encoding="utf-8"))
    card = card_to_object(read_card((COMMON / "card.png").read_bytes(), "card.png"), "v2")
    state = build_state(CaseData(settings=settings, card=card, preset=preset, chat=[]))
    state.chat_metadata["variables"] = {}
    return TavernSlashHost(state)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for name, (script, commands, expected) in SCRIPTS.items():
        times = []
        for _ in range(args.runs):
            interpreter = Interpreter(default_registry(), host())
            start = time.process_time()
            outcome = run_script(interpreter, script)
            times.append(time.process_time() - start)
            assert outcome.result is not None and outcome.result.pipe == expected, outcome.error
        median = statistics.median(times)
        print(
            f"{name}: median {median:.3f} s CPU (min {min(times):.3f}, max {max(times):.3f}, {args.runs} runs), "
            f"{commands / median:,.0f} commands / CPU second"
        )


if __name__ == "__main__":
    main()
