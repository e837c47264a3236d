"""Benchmark: the bridge between a card's scripts (QuickJS, their own process) and TavernHelper's
API in Python — the process's start, calls answered at once, promised calls, event emits.

Run from the repository root::

    .venv/bin/python bench/bench_script_bridge.py [--runs 5] [--calls 5000]

Each run starts a fresh process for a chat of our own card on SillyTavern 1.18's state (the host
``pear script replay`` uses) and reports, median and spread over the runs: the wall time until the
process answers (Python, QuickJS, lodash, the prelude; the chat's state is built too, after one
untimed warm-up that builds the token encoding), then for each workload the CPU time of this
process (``time.process_time``) and of the scripts' process (``/proc/<pid>/stat``) and the cost per
call.  Workloads: ``getVariables`` answered at once, ``deleteChatMessages([])`` promised (a promise
resolved between the scripts' turns), and ``emit`` of an event to one listener that writes a chat
variable.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kit.script_chats import Chat, own_card
from peargarden.app.play.script_process import _cpu_seconds


def _measured(chat: Chat, work: Callable[[], None]) -> tuple[float, float]:
    pid = chat.session.channel.proc.pid  # type: ignore[attr-defined]
    child, parent = _cpu_seconds(pid) or 0.0, time.process_time()
    work()
    return time.process_time() - parent, (_cpu_seconds(pid) or 0.0) - child


def _one_run(n: int) -> dict[str, tuple[float, float]]:
    """One fresh process: its start (wall) and each workload's CPU (host, scripts)."""
    out: dict[str, tuple[float, float]] = {}
    began = time.monotonic()
    chat = Chat(own_card(), [], None, {})
    chat.session.read(["ready"])
    out["start (wall)"] = (time.monotonic() - began, 0.0)
    sync = f"for (let i = 0; i < {n}; i++) getVariables({{ type: 'chat' }});"
    out["sync"] = _measured(chat, lambda: chat.run(sync, script_id="sync"))
    promised = f"for (let i = 0; i < {n}; i++) await deleteChatMessages([]);"
    out["promised"] = _measured(chat, lambda: chat.run(promised, script_id="promised"))
    chat.run("eventOn('测试', (i) => insertOrAssignVariables({ 次数: i }, { type: 'chat' }));", script_id="ev")

    def emits() -> None:
        for i in range(n // 10):
            chat.session.emit("测试", [i])

    out["emit"] = _measured(chat, emits)
    assert chat.state.chat_metadata["variables"]["次数"] == n // 10 - 1
    chat.session.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    n = args.calls
    results: dict[str, list[tuple[float, float]]] = {}
    Chat(own_card(), [], None, {}).session.close()  # the token encoding is built once per process: not timed
    for _ in range(args.runs):
        for name, row in _one_run(n).items():
            results.setdefault(name, []).append(row)
    for name, rows in results.items():
        if name == "start (wall)":
            walls = [row[0] for row in rows]
            print(f"{name}: median {statistics.median(walls):.3f} s (min {min(walls):.3f}, max {max(walls):.3f})")
            continue
        count = n // 10 if name == "emit" else n
        parent = [row[0] for row in rows]
        child = [row[1] for row in rows]
        total = [a + b for a, b in rows]
        print(
            f"{name} × {count}: CPU median {statistics.median(total):.3f} s "
            f"(host {statistics.median(parent):.3f} + scripts {statistics.median(child):.3f}; "
            f"min {min(total):.3f}, max {max(total):.3f}, {args.runs} runs), "
            f"{statistics.median(total) / count * 1e6:.0f} µs CPU per call"
        )


if __name__ == "__main__":
    main()
