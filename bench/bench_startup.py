"""Benchmark: how long light ``pear`` commands take to start, against a bare Python start.

Run from the repository root::

    .venv/bin/python bench/bench_startup.py [--runs 10]

Each command runs as a real process (``python -m peargarden …``) on a data folder made by ``pear init``
in a temp folder.  ``pear chat --once`` is one whole beat (start, the request to a local fake
OpenAI-compatible server in this process, the streamed reply, the chat written, exit): what a
scripted one-shot and every test that runs a real ``pear chat`` pay; ``pear tavern assemble`` is the
first tavern request of a new chat with the bundled card, printed (the other hot command).  The
figure is the child's CPU
time (user + system, from ``wait4``), the median over the runs; CPU time moves less than wall time
when other jobs share the machine.  ``python -c pass``
is measured in the same run, interleaved with the commands, and every median is also given as a ratio
to it.  One more run per command under ``-X importtime`` lists the modules it imported: the count, and
the third-party packages among them.

``--against SRC`` measures another tree's package too (``SRC`` is its ``src`` folder, put first on
``PYTHONPATH``), each command of both trees interleaved in the same runs, and adds its columns and the
ratio now / other side by side.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

COMMANDS: list[list[str]] = [["--help"], ["cards"], ["sessions", "list"], ["lorebook", "list"]]
BARE = ["-c", "pass"]
# One beat, with the endpoint given by flags (the side model follows it; thinking off, as a
# script would run it).  {url} is the fake server's.
BEAT = ["chat", "--once", "掌柜，还有空房吗？", "--base-url", "{url}", "--model", "fake-model", "--thinking", "off"]
ASSEMBLE = ["tavern", "assemble", "--card", "青梧", "--message", "掌柜，还有空房吗？"]


def cpu_seconds(args: list[str], env: dict[str, str]) -> float:
    """User + system CPU time of one child process running ``python ARGS``."""
    child = subprocess.Popen(
        [sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"bench_startup: python {' '.join(args)} exited {child.returncode}")
    return usage.ru_utime + usage.ru_stime


def imported_modules(args: list[str], env: dict[str, str]) -> list[str]:
    """The modules ``python ARGS`` imports, from ``-X importtime`` (one line per module on stderr)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=env, check=True
    )
    names = [line.rsplit("|", 1)[1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    return [name for name in names if name != "imported package"]  # that one is the header line


def third_party(modules: list[str], bare: list[str]) -> list[str]:
    """Top-level packages outside the standard library and peargarden that a bare start does not load.

    Failed optional imports show in ``-X importtime`` too (``copy`` tries ``org.python``); a name that
    cannot be found is not counted.
    """
    tops = {name.split(".")[0] for name in modules} - {name.split(".")[0] for name in bare}
    return sorted(
        top
        for top in tops
        if top not in sys.stdlib_module_names
        and not top.startswith("_")
        and top != "peargarden"
        and importlib.util.find_spec(top) is not None
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another tree's src folder, measured in the same runs")
    options = parser.parse_args()
    trees = {"now": None} if options.against is None else {"other": options.against.resolve(), "now": None}

    server = FakeOpenAIServer()
    server.default_reply = text_reply("有的，", "客官楼上请。")
    with server, tempfile.TemporaryDirectory(prefix="pear-startup-") as folder:
        env = {**os.environ, "PEARGARDEN_HOME": str(Path(folder) / "home"), "PYTHONIOENCODING": "utf-8"}
        # Compiled modules are written (in the temp folder), as an installed pear has them: where the
        # environment turns writing off, every run would compile the package again.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        subprocess.run([sys.executable, "-m", "peargarden", "init"], env=env, check=True, capture_output=True)
        cases = [("python -c pass", BARE)] + [
            ("pear " + " ".join(command), ["-m", "peargarden", *command]) for command in COMMANDS
        ]
        beat = [part.replace("{url}", server.base_url) for part in BEAT]
        cases.append(("pear chat --once", ["-m", "peargarden", *beat]))
        cases.append(("pear tavern assemble", ["-m", "peargarden", *ASSEMBLE]))
        envs = {tree: env if src is None else {**env, "PYTHONPATH": str(src)} for tree, src in trees.items()}
        for _, args in cases:  # one warm-up each: .pyc files written, disk cache filled
            for tree_env in envs.values():
                cpu_seconds(args, tree_env)
        times: dict[tuple[str, str], list[float]] = {(tree, label): [] for tree in trees for label, _ in cases}
        for _ in range(options.runs):
            for label, args in cases:  # interleaved, so a burst of load hits every case and tree alike
                for tree, tree_env in envs.items():
                    times[tree, label].append(cpu_seconds(args, tree_env))
        modules = {(tree, label): imported_modules(args, envs[tree]) for tree in trees for label, args in cases}

    print(f"python {sys.version.split()[0]}, {options.runs} runs, load average {os.getloadavg()[0]:.2f}")
    if options.against is not None:
        print(f"other: {options.against}")
    print()
    print(
        "| command |"
        + "".join(f" {tree}: median CPU (ms) | × bare | modules |" for tree in trees)
        + (" now / other |" if len(trees) > 1 else "")
        + " third-party packages imported (now) |"
    )
    print("|---|" + "---:|---:|---:|" * len(trees) + ("---:|" if len(trees) > 1 else "") + "---|")
    for label, _ in cases:
        row = f"| `{label}` |"
        for tree in trees:
            median = statistics.median(times[tree, label])
            bare = statistics.median(times[tree, "python -c pass"])
            row += f" {median * 1000:.1f} | {median / bare:.2f} | {len(modules[tree, label])} |"
        if len(trees) > 1:
            ratio = statistics.median(times["now", label]) / statistics.median(times["other", label])
            row += f" {ratio:.2f} |"
        packages = ", ".join(third_party(modules["now", label], modules["now", "python -c pass"])) or "—"
        print(f"{row} {packages} |")


if __name__ == "__main__":
    main()
