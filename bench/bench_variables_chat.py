"""Benchmark: what a chat's variables cost a tavern beat on a long MVU chat.

Run from the repository root::

    .venv/bin/python bench/bench_variables_chat.py [--messages 2000 10000] [--runs 20]

A SillyTavern chat of N messages, each carrying the recorded case's MVU record (≈ 2.4 KB), is
imported onto a card whose lorebook seeds MVU variables (``tests/variables/mvu_e2e/01-…``).  Timed,
median and 90th percentile over the runs, in this process:

- *request*: what the tavern request adds for variables — the branch read as SillyTavern's chat with
  its records (``request_variables``) and the late step over the recorded request's messages
  (``late_step``: templates and TavernHelper's macros);
- *after beat*: the after-beat step's reading of the branch (``branch_chat``: its end, the whole
  branch only when the end holds no MVU record), before MVU handles the reply;
- *status line*: ``pear chat``'s line (``latest_record`` over the branch's notes);
- *page rows*: the notes the page reads for its rows (``message_notes`` over the path).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from peargarden.agent.loop import BeatInput
from peargarden.app.library.imports import import_files
from peargarden.app.play.chat_variables import latest_record
from peargarden.app.play.service import ChatSession, PearApp
from peargarden.app.settings.connections import ResolvedProvider
from peargarden.modes.tavern.variables import branch_chat, late_step, request_variables
from peargarden.providers.scripted import ScriptedProvider
from peargarden.sessions.variables import message_notes
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CASE = Path(__file__).parents[1] / "tests" / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"


def _lines(count: int) -> list[dict[str, Any]]:
    recorded = [json.loads(line) for line in (CASE / "chat_05_send.jsonl").read_text(encoding="utf-8").splitlines()]
    user, reply = recorded[-2], recorded[-1]
    body = [recorded[1]] + [dict(user if i % 2 else reply) for i in range(1, count)]
    return [recorded[0], *body]


def _chat(root: Path, count: int) -> ChatSession:
    home = Home(root)
    seed_home(home)
    import_files(home, [CASE / "card.json"], book="mount", card=None)
    import_files(home, [CASE / "小梨变量书.json"], book="mount", card="小梨")
    provider = ScriptedProvider()
    app = PearApp(home, provider_factory=lambda s, c: ResolvedProvider(provider, "scripted", False, "off"))
    data = "\n".join(json.dumps(line, ensure_ascii=False) for line in _lines(count)).encode("utf-8")
    return app.import_chat("小梨", data, "长对话.jsonl")


def _time(work: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9) - 1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, nargs="*", default=[2000, 10000])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    raw = json.loads((CASE / "step_01_send.json").read_text(encoding="utf-8"))
    raw_messages = [{**m, "content": m["content"]} for m in raw["request_messages"]]
    raw_messages[1]["content"] = "<status_current_variable>\n{{format_message_variable::stat_data}}\n"
    print("| messages | request (read + late step) p50 / p90 | after beat read | status line | page notes |")
    print("|---:|---:|---:|---:|---:|")
    for count in args.messages:
        print(_row(count, args.runs, raw_messages))


def _row(count: int, runs: int, raw_messages: list[dict[str, Any]]) -> str:
    with tempfile.TemporaryDirectory() as root:
        chat = _chat(Path(root), count)
        inp = BeatInput(chat.context(), "", "off", [], 0, "tavern", "send", chat.customs())
        tree = chat.chat.tree
        view = chat.branch_view()

        def request_step() -> object:
            known = request_variables(chat.env, inp)
            return late_step(chat.env, known, raw_messages, {}, None, ())

        figures = [
            _time(request_step, runs),
            _time(lambda: branch_chat(view), runs),
            _time(lambda: latest_record(tree), runs),
            _time(lambda: message_notes(tree.path()), runs),
        ]
    cells = " | ".join(f"{p50:.1f} / {p90:.1f} ms" for p50, p90 in figures)
    return f"| {count} | {cells} |"


if __name__ == "__main__":
    main()
