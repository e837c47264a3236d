"""A pytest plugin for the suite's cost per test: each test's own CPU (the worker's, its threads'
included: a live web server runs in the worker), the CPU of the child processes it reaped
(``resource.getrusage``) and its wall time, written per worker to
``$PEARGARDEN_TEST_CPU_DIR/test-cpu-<worker>.json``.  Wall time beyond both CPUs is waiting (sleeps,
timeouts, a server's answer): on a loaded machine it is also time the test waited for a core, so
read the waiting list on a quiet one.

The browser's processes are reaped by Playwright's driver when a worker's session ends, so the
reaped column puts their whole CPU on whichever test ran last in that worker.  A third column reads
it where it is spent: how much the CPU of the worker's descendants (Playwright's driver, chromium's
processes, a `pear` a test left running) grew during the test, from ``/proc/<pid>/task/<tid>/children``
and each one's ``stat`` (its own and its reaped children's ticks) at the test's start and end.  A
descendant that ends during the test takes what it had already used out of that column (it comes
back in the reaped one), so own + reaped + descendants counts each CPU second once.

    PEARGARDEN_TEST_CPU_DIR=/tmp/cpu PYTHONPATH=bench .venv/bin/python -m pytest -n 3 -p pytest_test_cpu
    .venv/bin/python bench/pytest_test_cpu.py /tmp/cpu     # the largest tests and files
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_ROWS: list[tuple[str, float, float, float, float]] = []
_TICKS = os.sysconf("SC_CLK_TCK")


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as file:
                    children = [int(word) for word in file.read().split()]
            except OSError:
                continue
            found += children
            todo += children
    return found


def _live_descendants_cpu() -> dict[int, float]:
    """Each live descendant's CPU so far: its own and that of the children it reaped."""
    seconds: dict[int, float] = {}
    for pid in _descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state is field 3, utime/stime/cutime/cstime fields 14-17.
        seconds[pid] = sum(int(value) for value in fields[11:15]) / _TICKS
    return seconds


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, children, started = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
    live = _live_descendants_cpu()
    yield
    after = _live_descendants_cpu()
    spent = sum(after.values()) - sum(live.values())
    _ROWS.append((item.nodeid, _cpu(resource.RUSAGE_SELF) - own, _cpu(resource.RUSAGE_CHILDREN) - children,
                  time.perf_counter() - started, spent))  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = Path(os.environ.get("PEARGARDEN_TEST_CPU_DIR", "build/test-cpu"))
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (folder / f"test-cpu-{worker}.json").write_text(json.dumps(_ROWS), encoding="utf-8")


def report(folder: Path, top: int = 25) -> None:
    rows: list[Any] = []
    for path in folder.glob("test-cpu-*.json"):
        rows += json.loads(path.read_text(encoding="utf-8"))
    rows = [row if len(row) == 5 else [*row, 0.0] for row in rows]  # files written before the third column
    own, children = sum(row[1] for row in rows), sum(row[2] for row in rows)
    wall, tree = sum(row[3] for row in rows), sum(row[4] for row in rows)
    print(f"{len(rows)} tests: own {own:.1f} s, children reaped {children:.1f} s, descendants {tree:.1f} s,"
          f" wall {wall:.1f} s (summed)")  # fmt: skip
    by_file: collections.Counter[str] = collections.Counter()
    waiting_by_file: collections.Counter[str] = collections.Counter()
    for nodeid, mine, theirs, seconds, grown in rows:
        by_file[nodeid.split("::")[0]] += mine + theirs + grown
        waiting_by_file[nodeid.split("::")[0]] += max(0.0, seconds - mine - theirs - grown)
    for name, seconds in by_file.most_common(top):
        print(f"{seconds:7.1f} s  {name}")
    print("\n  own + reaped + descendants")
    for nodeid, mine, theirs, _, grown in sorted(rows, key=lambda row: -(row[1] + row[2] + row[4]))[:top]:
        print(f"{mine:6.2f} + {theirs:6.2f} + {grown:6.2f} s  {nodeid}")
    print(f"\nwaiting (wall beyond CPU): {sum(waiting_by_file.values()):.1f} s")
    for name, seconds in waiting_by_file.most_common(top):
        print(f"{seconds:7.1f} s  {name}")
    print()
    busy = sorted(rows, key=lambda row: -(row[3] - row[1] - row[2] - row[4]))[:top]
    for nodeid, mine, theirs, seconds, grown in busy:
        print(f"{seconds - mine - theirs - grown:6.2f} s waiting of {seconds:6.2f} s  {nodeid}")


if __name__ == "__main__":
    report(Path(sys.argv[1] if len(sys.argv) > 1 else "build/test-cpu"))
