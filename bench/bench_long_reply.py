"""Benchmark: what receiving one long reply costs a real ``pear chat --once``.

Run from the repository root::

    .venv/bin/python bench/bench_long_reply.py [--mb 1,3,10] [--piece 64] [--runs 1] [--before CHECKOUT]

Each size is one whole beat in a child process (``python -m peargarden chat --once``, stdout to
``/dev/null``) against the fake OpenAI-compatible server (:mod:`peargarden.testing.fake_openai`),
which runs in this process and streams the reply as fast as the socket takes it: Chinese text
(three UTF-8 bytes a character) cut into deltas of ``--piece`` characters, one server-sent event
each, then a finish reason and usage.  ``--reasoning`` streams the same amount as reasoning before
the reply.  The figure is the child's CPU time (user + system, from ``wait4``), and its wall time;
the reply's size is counted in UTF-8 bytes of reply text (the stream itself is larger: each event
carries its JSON envelope).  The chat written is checked: its last message holds the whole reply.
One short beat runs first, unmeasured (compiled modules written, the disk cache warm).

``--before CHECKOUT`` measures another checkout's code side by side (its ``src`` on the children's
``PYTHONPATH``, its own data folder): each size's beats alternate between the two, the order swapped
every run, and the table gives both CPU times and their ratio.  The last lines are the CPU per MB
between consecutive sizes: flat when the cost is linear in the reply's size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peargarden.testing.fake_openai import FakeOpenAIServer, StreamItem, StreamReply, chunk, text_reply, usage_chunk

TEXT = "客官楼上请，掌柜的把灯挑亮了些，窗外的雨还没有停。"


def reply_items(size_bytes: int, piece: int, reasoning: bool) -> tuple[list[StreamItem], int]:
    """The stream's items and the number of reply characters in it."""
    chars = size_bytes // 3
    body = (TEXT * (chars // len(TEXT) + 1))[:chars]
    items: list[StreamItem] = [chunk(role="assistant", content="")]
    if reasoning:
        items += [chunk(reasoning_content=body[i : i + piece]) for i in range(0, len(body), piece)]
    items += [chunk(content=body[i : i + piece]) for i in range(0, len(body), piece)]
    items += [chunk(finish_reason="stop"), usage_chunk(10, chars)]
    return items, chars


def run_beat(home: Path, url: str, env: dict[str, str]) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and exit code of one ``pear chat --once``."""
    args = ["chat", "--once", "讲个很长的故事", "--base-url", url, "--model", "fake-model", "--thinking", "off"]
    start = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "peargarden", "--home", str(home), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stderr is not None
    error = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(error.decode("utf-8", "replace"), file=sys.stderr)
    return usage.ru_utime + usage.ru_stime, time.monotonic() - start, code


def last_reply_chars(home: Path) -> int:
    sessions = sorted(home.glob("cards/*/chats/*/session.jsonl"), key=lambda p: p.stat().st_mtime)
    for line in reversed(sessions[-1].read_bytes().splitlines()):
        entry = json.loads(line)
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            return len(str(message.get("content") or ""))
    return 0


class Variant:
    """One code base under test: its children's environment and its own data folder."""

    def __init__(self, name: str, home: Path, env: dict[str, str]) -> None:
        self.name, self.home, self.env = name, home, env
        self.cpu: dict[float, list[float]] = {}
        self.wall: dict[float, list[float]] = {}


def prepare(name: str, folder: Path, base: dict[str, str], src: str | None, server: FakeOpenAIServer) -> Variant:
    env = dict(base)
    if src is not None:
        env["PYTHONPATH"] = src
    env["PYTHONPYCACHEPREFIX"] = str(folder / f"pycache-{name}")
    home = folder / f"home-{name}"
    subprocess.run([sys.executable, "-m", "peargarden", "--home", str(home), "init"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    server.script([text_reply("热身。")])  # compiled modules written, disk cache filled
    run_beat(home, server.base_url, env)
    return Variant(name, home, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", default="1,3,10", help="reply sizes in MB of UTF-8 text, comma-separated")
    parser.add_argument("--piece", type=int, default=64, help="characters per streamed delta")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--reasoning", action="store_true", help="the same amount of reasoning before the reply")
    parser.add_argument("--before", help="another checkout, measured side by side (its src on PYTHONPATH)")
    options = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {options.piece} characters per delta, load {os.getloadavg()[0]:.2f}")
    print()
    with FakeOpenAIServer() as server, tempfile.TemporaryDirectory(prefix="pear-long-reply-") as name:
        server.default_reply = text_reply("好。")  # story memory's side calls after the beat
        folder = Path(name)
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        variants = [prepare("after", folder, env, None, server)]
        if options.before:
            variants.insert(0, prepare("before", folder, env, str(Path(options.before).resolve() / "src"), server))
        header = "| reply (MB) | deltas |" + "".join(f" {v.name}: CPU (s) | {v.name}: wall (s) |" for v in variants)
        print(header + (" after / before (CPU) |" if len(variants) > 1 else "") + " reply kept (chars) |")
        print("|---:" * (header.count("|") - 1 + (len(variants) > 1) + 1) + "|")
        sizes = [float(part) for part in options.mb.split(",")]
        for size in sizes:
            items, chars = reply_items(int(size * 1_000_000), options.piece, options.reasoning)
            for run in range(options.runs):
                kept = []
                for variant in variants if run % 2 == 0 else variants[::-1]:
                    server.script([StreamReply(items=items)])
                    cpu, wall, code = run_beat(variant.home, server.base_url, variant.env)
                    if code != 0:
                        raise SystemExit(f"{variant.name}: exit {code}")
                    variant.cpu.setdefault(size, []).append(cpu)
                    variant.wall.setdefault(size, []).append(wall)
                    kept.append(last_reply_chars(variant.home))
                row = f"| {size:g} | {len(items) - 3:,} |"
                row += "".join(f" {v.cpu[size][-1]:.2f} | {v.wall[size][-1]:.2f} |" for v in variants)
                if len(variants) > 1:
                    row += f" {variants[1].cpu[size][-1] / variants[0].cpu[size][-1]:.2f} |"
                print(row + f" {min(kept):,} of {chars:,} |")
                sys.stdout.flush()
        print()
        for variant in variants:
            best = [min(variant.cpu[size]) for size in sizes]
            slopes = [
                f"{sizes[i]:g}→{sizes[i + 1]:g} MB: {(best[i + 1] - best[i]) / (sizes[i + 1] - sizes[i]):.2f}"
                for i in range(len(sizes) - 1)
            ]
            print(f"{variant.name}: CPU per MB between sizes (best of runs) — " + ", ".join(slopes))


if __name__ == "__main__":
    main()
