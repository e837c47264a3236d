"""Benchmark helper: the CPU time of a command and of every process it starts, reaped or not.

Run from the repository root, for example::

    .venv/bin/python bench/tree_cpu.py -- \
        .venv/bin/python -m pytest tests/web -q -n 3 --dist worksteal -p no:cacheprovider

``/usr/bin/time`` and ``os.times()`` count a process's CPU only when its parent waits for it.
Chromium's renderer, zygote and GPU processes are left behind when Playwright closes the browser,
so nobody waits for them and their CPU is never counted.  This script makes itself the
"child subreaper" of the command (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``): every orphan of the
tree is handed to it instead of to PID 1, and it waits for each, so ``getrusage(RUSAGE_CHILDREN)``
ends with the exact user + system time of the whole tree.  A sampler reads ``/proc`` every 0.1 s
for a breakdown by kind of process (pytest workers, chromium's processes by ``--type``, the
Playwright driver); the breakdown is sampled (a process that lives less than 0.1 s may be missed),
the total is not.

Prints the wall time, the exact total, the breakdown, the load average at the start and end and the
machine's idle core-seconds while the command ran (``/proc/stat``: time no process of anybody's wanted
a core — on a shared machine a floor of what the command left idle, since others may fill some);
exits with the command's exit code.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
TICKS = os.sysconf("SC_CLK_TCK")


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def kind(cmdline: list[str]) -> str:
    """What a process is, for the breakdown."""
    if not cmdline:
        return "other"
    program = Path(cmdline[0]).name
    if "chrom" in program:
        for arg in cmdline[1:]:
            if arg.startswith("--type="):
                return "chromium " + arg.removeprefix("--type=")
        return "chromium browser"
    if program == "node" or "playwright" in " ".join(cmdline[:2]):
        return "playwright driver"
    if "python" in program:
        if any("xdist" in arg or "execnet" in arg for arg in cmdline) or "-c" in cmdline:
            return "python (pytest worker or child)"
        return "python"
    return program


class Sampler(threading.Thread):
    """Keeps, for every process of the tree, the largest utime + stime it saw (in clock ticks)."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.seen: dict[tuple[int, int], tuple[str, int]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(0.1)

    def sample(self) -> None:
        me = os.getpid()
        parents: dict[int, int] = {}
        stats: dict[int, tuple[int, int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                raw = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = raw[raw.rindex(")") + 2 :].split()
            pid = int(entry)
            parents[pid] = int(fields[1])
            # utime, stime are fields 14 and 15 of stat; starttime is 22 (1-based, counting pid and comm).
            stats[pid] = (int(fields[11]) + int(fields[12]), int(fields[19]))
        for pid, (ticks, start) in stats.items():
            ancestor, steps = parents.get(pid, 0), 0
            while ancestor not in (me, 0, 1) and steps < 64:
                ancestor, steps = parents.get(ancestor, 0), steps + 1
            if ancestor != me:
                continue
            key = (pid, start)
            before = self.seen.get(key)
            if before is None or ticks > before[1]:  # labelled again: a process may exec another program
                label = self.label(pid)
                if label == "other" and before is not None:  # an exited process has no command line left
                    label = before[0]
                self.seen[key] = (label, ticks)

    @staticmethod
    def label(pid: int) -> str:
        try:
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return "other"
        # Chromium's zygote children rewrite their command line as one string: split on spaces too.
        return kind(raw.replace(b"\0", b" ").decode(errors="replace").split())


def idle_seconds() -> float:
    """Core-seconds every core of the machine has spent idle since boot (``/proc/stat``'s first line)."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    return int(fields[4]) / TICKS  # user nice system idle ...


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print(__doc__)
        return 2
    become_subreaper()
    load_start = os.getloadavg()
    idle_start = idle_seconds()
    wall_start = time.monotonic()
    child = subprocess.Popen(argv)
    sampler = Sampler(child.pid)
    sampler.start()
    status = 0
    wall = 0.0
    leftover = False
    deadline: float | None = None
    while True:
        # Block until the command ends; then give what it left behind up to 30 s to exit.
        try:
            pid, wait_status, _ = os.wait4(-1, 0 if deadline is None else os.WNOHANG)
        except ChildProcessError:
            break
        if pid == child.pid:
            status = os.waitstatus_to_exitcode(wait_status)
            wall = time.monotonic() - wall_start
            deadline = time.monotonic() + 30
        elif pid == 0 and deadline is not None:
            if time.monotonic() > deadline:
                leftover = True
                break
            time.sleep(0.1)
    sampler.stop.set()
    sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_end = os.getloadavg()
    idle = idle_seconds() - idle_start
    by_kind: dict[str, float] = {}
    for label, ticks in sampler.seen.values():
        by_kind[label] = by_kind.get(label, 0.0) + ticks / TICKS
    print(f"tree_cpu: wall {wall:.1f} s; CPU user {usage.ru_utime:.1f} s + sys {usage.ru_stime:.1f} s "
          f"= {usage.ru_utime + usage.ru_stime:.1f} s (every process of the tree, reaped by this script)",
          file=sys.stderr)  # fmt: skip
    if leftover:
        print("tree_cpu: processes of the tree were still alive 30 s after the command ended; "
              "their CPU is in the sampled lines only", file=sys.stderr)  # fmt: skip
    print(f"tree_cpu: load average (1 min) {load_start[0]:.1f} -> {load_end[0]:.1f}; the machine's cores "
          f"idle {idle:.1f} s of {os.cpu_count()} x {wall:.1f} s", file=sys.stderr)  # fmt: skip
    for label, seconds in sorted(by_kind.items(), key=lambda item: -item[1]):
        print(f"tree_cpu:   {seconds:7.1f} s  {label} (sampled)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
