"""Benchmark: what hearing a beat's events before its request costs the server (issue 45,
``app/play/live_events.py``) — a beat of a page running card scripts against the same beat of a page
without, side by side in one run.

Run from the repository root::

    .venv/bin/python bench/bench_live_events.py [--runs 12] [--turns 40]

One data folder holds the recorded TavernHelper case 16's card (a world book, a script; tavern mode,
SillyTavern 1.18) with a chat of *turns* exchanges played first (untimed) against the loopback fake
OpenAI server.  Then, alternately, a regenerate of the last reply played as the web plays it
(``LiveBeats.play``, the beat iterated on its worker thread): A without scripts (``live=False``: no
item, no wait), B with (the beat's request held, the ``script_events`` item made — SillyTavern's
chat and events as the frames read them — and answered at once by a page that changes nothing, the
round trip through JSON as the web's).  Reported: the median CPU time of this process per beat
(``time.process_time``: the beat, its worker thread, the fake server's thread) and wall time, B/A.
What the browser's frames spend hearing the events is the page's and is not in this figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kit.th_cases import CASES, case_home
from peargarden.app.play.beat import PageItem
from peargarden.app.play.live_events import LiveBeats
from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply


def _echo(item: dict[str, Any]) -> dict[str, Any]:
    """A page whose listeners change nothing: what the events carried, back."""
    by_kind = {kind: args for kind, args, _ in item["events"]}
    return {"chat": by_kind["chat_completion_prompt_ready"][0]["chat"],
            "settings": by_kind["chat_completion_settings_ready"][0]}  # fmt: skip


def _beat(live: LiveBeats, chat: ChatSession, fake: FakeOpenAIServer, scripts: bool) -> tuple[float, float]:
    fake.script([text_reply("阿梨想了想，又说了一遍。")])
    cpu, wall = time.process_time(), time.monotonic()
    beat = live.play(chat, "regenerate", "", 1, live=scripts)
    heard = 0
    while (item := beat.next_item()) is not None:
        if isinstance(item, PageItem):
            heard += 1
            said = json.loads(json.dumps(item.to_json()))  # as it crosses to the page and back
            live.answer(chat, said["token"], json.loads(json.dumps(_echo(said))))
    live.forget(beat)
    assert heard == int(scripts) and not beat.record.warnings
    return time.process_time() - cpu, time.monotonic() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pg-bench-live-") as tmp, FakeOpenAIServer() as fake:
        config = (
            'mode = "tavern"\ngreeting = true\n\n[story]\nscene_notes = false\n\n'
            '[model]\nprovider = "fake"\nmodel = "gpt-3.5-turbo"\nthinking = "off"\n\n'
            f'[providers.fake]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\n'
        )
        home, card = case_home(Path(tmp) / "梨园", CASES / "16-event-order-send", config)
        app = PearApp(home)
        live = LiveBeats()
        app.on_request.append(live.on_request)
        chat = app.new_chat(card, ChatOptions(mode="tavern"))
        for turn in range(args.turns):
            fake.script([text_reply(f"第{turn}回：阿梨拨了拨算盘，说这个月的房租该涨了。" * 4)])
            for _ in chat.play("send", f"第{turn}句：房租的事再商量商量？").events():
                pass
        for scripts in (False, True):  # warm both paths
            _beat(live, chat, fake, scripts)
        rows: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(args.runs):
            for scripts in (False, True):
                rows[scripts].append(_beat(live, chat, fake, scripts))
    a_cpu, b_cpu = (statistics.median(cpu for cpu, _ in rows[side]) for side in (False, True))
    a_wall, b_wall = (statistics.median(wall for _, wall in rows[side]) for side in (False, True))
    print(f"chat: {args.turns} exchanges; {args.runs} beats each side, alternating; load {os.getloadavg()[0]:.1f}")
    print("| beat (regenerate) | CPU median (ms) | wall median (ms) |")
    print("|---|---:|---:|")
    print(f"| A: page without scripts | {a_cpu * 1000:.1f} | {a_wall * 1000:.1f} |")
    print(f"| B: events heard before the request, answered at once | {b_cpu * 1000:.1f} | {b_wall * 1000:.1f} |")
    print(f"| B / A | {b_cpu / a_cpu:.2f}× | {b_wall / a_wall:.2f}× |")


if __name__ == "__main__":
    main()
