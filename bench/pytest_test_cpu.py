"""A pytest plugin for the suite's cost per test: each test's own CPU (the worker's, its threads'
included: a live web server runs in the worker), the CPU of the child processes it reaped
(``resource.getrusage``) and its wall time, written per worker to
``$PEARGARDEN_TEST_CPU_DIR/test-cpu-<worker>.json``.  Wall time beyond both CPUs is waiting (sleeps,
timeouts, a server's answer): on a loaded machine it is also time the test waited for a core, so
read the waiting list on a quiet one.

The browser's processes are reaped by Playwright's driver when a worker's session ends, so they land
on whichever test ran last in that worker.

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

_ROWS: list[tuple[str, float, float, float]] = []


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, children, started = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
    yield
    _ROWS.append((item.nodeid, _cpu(resource.RUSAGE_SELF) - own, _cpu(resource.RUSAGE_CHILDREN) - children,
                  time.perf_counter() - started))  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = Path(os.environ.get("PEARGARDEN_TEST_CPU_DIR", "build/test-cpu"))
    folder.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (folder / f"test-cpu-{worker}.json").write_text(json.dumps(_ROWS), encoding="utf-8")


def report(folder: Path, top: int = 25) -> None:
    rows: list[Any] = []
    for path in folder.glob("test-cpu-*.json"):
        rows += json.loads(path.read_text(encoding="utf-8"))
    own, children = sum(row[1] for row in rows), sum(row[2] for row in rows)
    wall = sum(row[3] for row in rows)
    print(f"{len(rows)} tests: own {own:.1f} s, children reaped {children:.1f} s, wall {wall:.1f} s (summed)")
    by_file: collections.Counter[str] = collections.Counter()
    waiting_by_file: collections.Counter[str] = collections.Counter()
    for nodeid, mine, theirs, seconds in rows:
        by_file[nodeid.split("::")[0]] += mine + theirs
        waiting_by_file[nodeid.split("::")[0]] += max(0.0, seconds - mine - theirs)
    for name, seconds in by_file.most_common(top):
        print(f"{seconds:7.1f} s  {name}")
    print()
    for nodeid, mine, theirs, _ in sorted(rows, key=lambda row: -(row[1] + row[2]))[:top]:
        print(f"{mine:6.2f} + {theirs:6.2f} s  {nodeid}")
    print(f"\nwaiting (wall beyond CPU): {sum(waiting_by_file.values()):.1f} s")
    for name, seconds in waiting_by_file.most_common(top):
        print(f"{seconds:7.1f} s  {name}")
    print()
    for nodeid, mine, theirs, seconds in sorted(rows, key=lambda row: -(row[3] - row[1] - row[2]))[:top]:
        print(f"{seconds - mine - theirs:6.2f} s waiting of {seconds:6.2f} s  {nodeid}")


if __name__ == "__main__":
    report(Path(sys.argv[1] if len(sys.argv) > 1 else "build/test-cpu"))
