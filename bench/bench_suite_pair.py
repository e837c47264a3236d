"""The test suite of two commits side by side: the CPU each costs, and their ratio (issue 27, point 6).

One run after the other moves by ±10 % on a shared machine as its background load changes; two trees
run at the same time see the same load for the same minutes.  Each commit is taken with
``git archive`` into its own folder under ``--work`` (``../shared`` linked beside it, as the tests
expect), with its own ``PYTHONPATH`` (its ``src``), bytecode folder and ``TMPDIR``, and this
repository's ``.venv``; bytecode is kept, as ``scripts/test.sh`` keeps it, and each tree's cache is
warmed by a collection first.  Both run ``pytest -n 3 --dist worksteal`` under ``bench/tree_cpu.py``,
which counts the CPU of every process of each tree (chromium's included).  ``--swap`` runs the pair
again with the places swapped (the one that starts second has a quieter first second, the one that
ends last a quieter last minute).

    .venv/bin/python bench/bench_suite_pair.py cab1fa1 HEAD            # the issue's suite against main
    .venv/bin/python bench/bench_suite_pair.py cab1fa1 HEAD --swap -- --ignore=tests/web
    .venv/bin/python bench/bench_suite_pair.py HEAD~1 HEAD -- tests/web

Arguments after ``--`` go to both pytest runs.  ``PEARGARDEN_EXAMPLES`` is ``quick`` unless set, as in
``scripts/test.sh`` (a tree older than it ignores it).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
TOTAL = re.compile(r"tree_cpu: wall ([\d.]+) s; CPU user ([\d.]+) s \+ sys ([\d.]+) s")


LOOP = "import time\nt = time.process_time()\nx = 1\nfor i in range(10**7): x *= 1\nprint(time.process_time() - t)"


def loop_seconds() -> float:
    """The plain-Python loop of 10^7 multiplications the issue states the slow host's speed by, run as
    the old notebook wrote it (``git show fd224ce:docs/benchmarks.md``, *Test suite time*):
    ``python3 -c``, at module level (inside a function, where ``x`` is a
    fast local, the same loop takes a third of the time)."""
    return float(subprocess.run(["python3", "-c", LOOP], check=True, capture_output=True, text=True).stdout)


def checkout(commit: str, work: Path) -> Path:
    sha = subprocess.run(["git", "rev-parse", "--short", commit], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()  # fmt: skip
    tree = work / f"suite-{sha}"
    if not tree.exists():
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    shared = work / "shared"
    if not shared.exists() and (ROOT.parent / "shared").is_dir():
        shared.symlink_to(ROOT.parent / "shared")
    return tree


def environment(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PEARGARDEN_EXAMPLES", "quick")
    env["PYTHONPATH"] = str(tree / "src")
    env["PYTHONPYCACHEPREFIX"] = str(tree.parent / f"pycache-{tree.name}")
    temp = tree.parent / f"tmp-{tree.name}"
    temp.mkdir(exist_ok=True)
    env["TMPDIR"] = str(temp)
    return env


def warm(tree: Path) -> None:
    env = environment(tree)
    subprocess.run([str(PYTHON), "-m", "compileall", "-q", "src"], cwd=tree, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    subprocess.run([str(PYTHON), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=tree,
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip


def run(tree: Path, args: list[str], results: dict[str, tuple[float, float, str]]) -> None:
    command = [str(PYTHON), str(ROOT / "bench" / "tree_cpu.py"), "--", str(PYTHON), "-m", "pytest", "-n", "3",
               "--dist", "worksteal", "-q", "-p", "no:cacheprovider", *args]  # fmt: skip
    done = subprocess.run(command, cwd=tree, env=environment(tree), capture_output=True, text=True)
    output = done.stdout + done.stderr
    found = TOTAL.search(output)
    summary = next((line for line in reversed(output.splitlines()) if " passed" in line or " failed" in line), "?")
    if found is None:
        raise SystemExit(f"bench_suite_pair: no CPU total from {tree.name}:\n{output[-2000:]}")
    failed = [line for line in output.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    results[tree.name] = (float(found.group(1)), float(found.group(2)) + float(found.group(3)),
                          "; ".join([summary.strip(), *failed]))  # fmt: skip


def pair(first: Path, second: Path, args: list[str]) -> dict[str, tuple[float, float, str]]:
    results: dict[str, tuple[float, float, str]] = {}
    before, load = loop_seconds(), os.getloadavg()[0]
    started = time.strftime("%H:%M", time.gmtime())
    threads = [threading.Thread(target=run, args=(tree, args, results)) for tree in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after, load_after = loop_seconds(), os.getloadavg()[0]
    print(f"pair {first.name}, {second.name} ({started} UTC): loop {before:.2f} / {after:.2f} s, "
          f"load {load:.1f} -> {load_after:.1f}")  # fmt: skip
    for name, (wall, cpu, summary) in results.items():
        print(f"  {name}: {cpu:6.1f} s CPU, {wall:6.1f} s wall  ({summary})")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the commit compared against (its CPU is the ratio's denominator)")
    parser.add_argument("head", help="the commit measured")
    parser.add_argument("--swap", action="store_true", help="run the pair again with the places swapped")
    parser.add_argument("--work", type=Path, default=None, help="where the trees go (default: a temp folder)")
    argv = sys.argv[1:]
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    options = parser.parse_args(argv)
    memory = "/dev/shm" if os.path.isdir("/dev/shm") else None  # the code under test fsyncs every write
    work = options.work or Path(tempfile.mkdtemp(prefix="suite-pair-", dir=memory))
    base, head = checkout(options.base, work), checkout(options.head, work)
    for tree in (base, head):
        warm(tree)
    orders = [(head, base), (base, head)] if options.swap else [(head, base)]
    for first, second in orders:
        results = pair(first, second, extra)
        print(f"  ratio {head.name}/{base.name}: {results[head.name][1] / results[base.name][1]:.2f}")


if __name__ == "__main__":
    main()
