"""The parts of a beat that pass over every message of a long chat, each timed alone in one process.

A 20k-message chat (``bench_sessions.write_chat``, ``--shape swipes`` by default) is opened once and
its context built; then each part runs ``--repeat`` times and the minimum and median CPU
(``time.process_time``) are printed, in milliseconds:

- ``context``: ``build_context`` over the active path of a freshly opened chat (each run opens it);
- ``story_users``: the compaction plan's count of the user turns between the ends it reads;
- ``turn count``: the stage's count of the turns before a budgeted window (``StoryProse._count``);
- ``scans``: the hidden and the work scans of a new process's first beat;
- ``messages()``: the branch's message entries asked for again (a beat asks about six times);
- ``beat log load`` / ``save``: a log of ten beats whose requests each carry the budgeted history.

    .venv/bin/python bench/bench_beat_parts.py [--shape swipes] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_sessions import write_chat

from peargarden.app.play import beat_log
from peargarden.app.play.beat_log import BeatRecord
from peargarden.modes.stage.prose import StoryProse
from peargarden.modes.stage.request import hidden_scan
from peargarden.modes.stage.story_count import story_users
from peargarden.modes.work.request import work_scan
from peargarden.sessions.context import build_context
from peargarden.workspace.chats import SESSION_FILE, ChatFile

CHAT_ID = "20261201-999999-play"


def cpu_ms(action: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> str:
    runs = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        action()
        runs.append((time.process_time() - start) * 1000)
    return f"min {min(runs):7.2f}   median {statistics.median(runs):7.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="swipes", choices=("plain", "summarised", "swipes"))
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        chats = Path(tmp) / "chats"
        write_chat(chats / CHAT_ID / SESSION_FILE, CHAT_ID, args.size, args.shape)
        chat = ChatFile.open(chats, CHAT_ID, write_index=False)
        path = chat.tree.path()
        context = build_context(path)  # notes each entry's shape, as a beat's context does
        entries = [entry for entry in path if entry.type == "message"]
        fresh: list[list[object]] = []

        def reopen() -> None:
            fresh[:] = [ChatFile.open(chats, CHAT_ID, write_index=False).tree.path()]

        def context_of_fresh() -> None:
            build_context(fresh[0])  # type: ignore[arg-type]

        def scans() -> None:
            hidden_scan()(context)
            work_scan()(context)

        session = Path(tmp) / "log" / SESSION_FILE
        session.parent.mkdir()
        request = {"purpose": "beat", "messages": [{"role": m.role, "text": m.content} for m in context[-2300:]]}
        logged = [BeatRecord(f"2026-12-03T00:00:{n:02d}.000+00:00", 1.0, [], [request]) for n in range(10)]
        beat_log.save(session, logged)
        beats = beat_log.load(session, counted=False)
        chat.tree.messages()
        rows = [
            ("context", cpu_ms(context_of_fresh, args.repeat, reopen)),
            ("story_users", cpu_ms(lambda: story_users(entries), args.repeat)),
            ("turn count", cpu_ms(lambda: StoryProse()._count(context[:-100]), args.repeat)),
            ("scans", cpu_ms(scans, args.repeat)),
            ("messages()", cpu_ms(chat.tree.messages, args.repeat)),
            ("beat log load", cpu_ms(lambda: beat_log.load(session, counted=False), args.repeat)),
            ("beat log save", cpu_ms(lambda: beat_log.save(session, beats), args.repeat)),
        ]
    print(f"{args.size} messages, {args.shape}, {len(chat.tree)} entries (ms of CPU, {args.repeat} runs)")
    for name, figures in rows:
        print(f"{name:15} {figures}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
