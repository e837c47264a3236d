"""What a stage beat's imports cost, tree against tree: the modules a ``pear chat --once`` on a
card's stage chat over an endpoint imports, timed in fresh interpreters, the trees alternating.

Each run is a new ``python`` that imports the command's modules, the HTTP provider and the stage's
mode row (what the beat loads before it reads the chat) and prints its CPU time
(``time.process_time``) and how many modules it then holds; median and minimum per tree.

    .venv/bin/python bench/bench_beat_imports.py --runs 15 TREE_A TREE_B

Each TREE is a folder holding a ``src/peargarden`` (``git archive <commit> src | tar -x -C TREE``);
both run on this ``.venv``, each with its own bytecode folder (compiled before the first run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PROBE = """
import sys, time
started = time.process_time()
import peargarden.cli._run, peargarden.cli.chat_cmd, peargarden.cli._vault
import peargarden.providers.openai_compat, httpcore2
from peargarden.modes.table import MODES
MODES["stage"]
print(time.process_time() - started, len(sys.modules))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    base = {**os.environ}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    seconds: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    modules: dict[Path, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        envs = {
            tree: {**base, "PYTHONPATH": str(tree.resolve() / "src"), "PYTHONPYCACHEPREFIX": f"{tmp}/pyc-{n}"}
            for n, tree in enumerate(args.trees)
        }
        for tree in args.trees:
            subprocess.run([sys.executable, "-c", PROBE], env=envs[tree], check=True, capture_output=True)
        print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
        for run in range(args.runs):
            for tree in args.trees if run % 2 == 0 else args.trees[::-1]:
                out = subprocess.run([sys.executable, "-c", PROBE], env=envs[tree], check=True, capture_output=True)
                cpu, count = out.stdout.split()
                seconds[tree].append(float(cpu))
                modules[tree] = int(count)
        print(f"load average at end: {os.getloadavg()}", file=sys.stderr)
    for tree, times in seconds.items():
        print(f"{tree!s:40} modules {modules[tree]}  median {statistics.median(times) * 1000:.1f} ms  "
              f"min {min(times) * 1000:.1f} ms  n={len(times)}")  # fmt: skip


if __name__ == "__main__":
    main()
