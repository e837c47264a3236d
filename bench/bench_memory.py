"""Story memory: what the bookkeeping of a beat costs outside the model call, and how long a stage
request takes to assemble for a 10,000-message story after compaction.

1. Bookkeeping per beat: a chat with N beats (greeting + user/assistant pairs, Chinese prose) is
   written to a temporary data folder; then beats are "played" by appending a user message and a
   reply, and :func:`peargarden.modes.stage.memory.after_beat` runs with an in-process side model that
   answers instantly with a canned patch (so only our work is timed: reading the branch, the keeper's
   prompt, parsing, the patch, the fsynced ledger entry, the compaction check with its token count).
2. Assembly after compaction: a 10,000-message story whose branch ends with a relay summary covering
   all but the last 6 rounds; the stage builder builds a beat's request (story view: ledger,
   summary, resident memory; history rebuild of the uncovered tail; injection; budget).  Opening the
   chat (reading and decoding the session file) is timed apart.

    .venv/bin/python bench/bench_memory.py [--beats 30] [--sizes 10,100,1000] [--messages 10000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from peargarden.agent.loop import BeatInput
from peargarden.agent.tools import tool_spec
from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import ResolvedProvider
from peargarden.modes.stage import memory as bookkeeping
from peargarden.providers.scripted import ScriptedProvider
from peargarden.sessions import custom_entry, entry_line, header_line, message_entry
from peargarden.workspace import atomic
from peargarden.workspace.chats import SESSION_FILE
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

PROSE = "细雨落在青石板上，周伯把算盘拨得噼啪作响，抬眼看了看门口撑伞的人影，又低头记账。" * 4


def _write_chat(home: Home, messages: int, *, summary: bool) -> str:
    chats = home.card_dir("青梧") / "chats"
    chat_id = f"bench-{messages}-{int(summary)}"
    lines = [header_line(chat_id, "2026-01-01T00:00:00Z", card="青梧", mode="stage")]
    parent: str | None = None
    ids: list[str] = []
    for n in range(messages):
        role = "user" if n % 2 == 0 else "assistant"
        text = f"第{n // 2}句：往前走。" if role == "user" else f"第{n // 2}拍：{PROSE}"
        entry = message_entry(f"{n:08x}", parent, "2026-01-01T00:00:00Z", {"role": role, "content": text})
        lines.append(entry_line(entry))
        ids.append(entry.id)
        parent = entry.id
    if summary:
        keep_from = messages - 12  # the last 6 rounds stay verbatim
        data = {"summary": "## 前情提要\n" + PROSE * 3, "coversThroughId": ids[keep_from - 1], "turns": keep_from // 2}
        ledger = {
            "time": "第九十日 黄昏",
            "location": "听雨轩",
            "characters": {f"路人{k}": {"affinity": k % 20, "status": "过客"} for k in range(40)},
            "inventory": ["旧油纸伞（阿远）", "铜钥匙"],
            "plot_threads": ["怀瑾公子的下落"],
            "roster": {"characters": {f"路人{k}": "第一日" for k in range(40)}, "items": {}, "events": {}},
        }
        for custom_type, body in ((bookkeeping.NOTES_TYPE, {"ledger": ledger}), (bookkeeping.SUMMARY_TYPE, data)):
            entry = custom_entry(f"c{len(lines):07x}", parent, "2026-01-01T00:00:00Z", custom_type, body)
            lines.append(entry_line(entry))
            parent = entry.id
    atomic.write_text(chats / chat_id / SESSION_FILE, "\n".join(lines) + "\n")
    return chat_id


def _app(home: Home) -> PearApp:
    provider = ScriptedProvider([])

    def factory(_settings: object, _connection: object) -> ResolvedProvider:
        return ResolvedProvider(provider, "fake-model", False, "medium")

    return PearApp(home, provider_factory=factory, story_memory=True)  # type: ignore[arg-type]


class _Canned:
    """A side model that always answers with the same ledger patch (no model call is measured)."""

    def __call__(self, _system: str, _user: str, _max_tokens: int, *, purpose: str = "side") -> str:
        return json.dumps({"patch": {"time": "第二日", "characters": {"周伯": {"affinity": "+1"}}}}, ensure_ascii=False)

    def stopped(self) -> bool:
        return False


def bench_bookkeeping(home: Home, beats: int, size: int) -> dict[str, float]:
    chat_id = _write_chat(home, size * 2, summary=False)
    session = _app(home).open_chat("青梧", chat_id)
    costs: list[float] = []
    for n in range(beats):
        session.chat.append_message({"role": "user", "content": f"新的一句{n}"})
        session.chat.append_message({"role": "assistant", "content": PROSE})
        start = time.perf_counter()
        warnings = bookkeeping.bookkeeping(session.branch_view(), _Canned())
        costs.append(time.perf_counter() - start)
        assert not warnings, warnings
    return {"median_ms": statistics.median(costs) * 1000, "p90_ms": sorted(costs)[int(len(costs) * 0.9)] * 1000}


def bench_assembly(home: Home, messages: int, repeats: int = 20, *, compacted: bool = True) -> dict[str, float]:
    chat_id = _write_chat(home, messages, summary=compacted)
    start = time.perf_counter()
    session = _app(home).open_chat("青梧", chat_id)
    opened = time.perf_counter() - start
    session.chat.append_message({"role": "user", "content": "周伯，怀瑾公子可有消息？"})
    builder, tools = session.app.mode("stage").setup(session.env)
    specs = [tool_spec(tool) for tool in tools]
    times: list[float] = []
    size = 0
    for _ in range(repeats):
        start = time.perf_counter()
        history = session.context()
        built = builder(BeatInput(history, "", "medium", specs, 0, "stage", "send"))
        times.append(time.perf_counter() - start)
        request = getattr(built, "request", built)
        size = len(request.messages)
    return {"open_ms": opened * 1000, "assemble_ms": statistics.median(times) * 1000, "request_messages": size}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--beats", type=int, default=30)
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Home(Path(tmp))
        seed_home(home)
        print("bookkeeping per beat (side model answers instantly):")
        for size in (int(s) for s in args.sizes.split(",")):
            result = bench_bookkeeping(home, args.beats, size)
            print(f"  {size:>6} beats before: median {result['median_ms']:.2f} ms, p90 {result['p90_ms']:.2f} ms")
        for compacted in (True, False):
            result = bench_assembly(home, args.messages, compacted=compacted)
            print(
                f"assembly, {args.messages} messages {'after' if compacted else 'without'} compaction: "
                f"open {result['open_ms']:.0f} ms, request {result['assemble_ms']:.2f} ms "
                f"({int(result['request_messages'])} messages sent)"
            )


if __name__ == "__main__":
    main()
