"""Engine overhead per beat: everything a beat costs except waiting for the model.

A chat of N entries (100 / 1,000 / 10,000) is written to a temporary data folder, then beats are
played against the fake OpenAI-compatible server over real HTTP.  The provider is wrapped so the time
spent inside its stream (HTTP, SSE parsing, the server) is measured; the engine overhead of a beat is
its wall time minus that: appending the user message (fsync), rebuilding the context from the leaf,
building the request, recording the reply (fsync), emitting events.  The fsynced appends are also
timed on their own ("fsync"), so "cpu" is the engine's own work; "provider" is the time inside the
provider's stream (the openai SDK's request preparation, HTTP, the fake server).  "cpu-time" is the
CPU time the beat's thread spent outside the provider's stream (``time.thread_time``: the fake
server's thread and other processes are not counted, so it moves little with the machine's load).

    .venv/bin/python bench/bench_engine.py [--beats 60] [--sizes 100,1000,10000] [--gc-freeze]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.providers.base import ChatRequest, StreamEvent
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.sessions import entry_line, header_line, message_entry
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace import atomic
from peargarden.workspace.chats import SESSION_FILE, ChatFile
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


class TimedProvider:
    """Counts the seconds spent inside the wrapped provider's stream (wall, and this thread's CPU)."""

    def __init__(self, inner: OpenAICompatProvider) -> None:
        self.inner = inner
        self.name = inner.name
        self.model_seconds = 0.0
        self.model_cpu = 0.0

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        start, cpu = time.perf_counter(), time.thread_time()
        iterator = self.inner.stream(request, cancel)
        self.model_seconds += time.perf_counter() - start
        self.model_cpu += time.thread_time() - cpu
        while True:
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                event = next(iterator)
            except StopIteration:
                self.model_seconds += time.perf_counter() - start
                self.model_cpu += time.thread_time() - cpu
                return
            self.model_seconds += time.perf_counter() - start
            self.model_cpu += time.thread_time() - cpu
            yield event

    def list_models(self) -> list[str]:
        return self.inner.list_models()


class TimedAppend:
    """Counts the seconds spent in ``atomic.append_line`` (the fsynced session writes)."""

    def __init__(self) -> None:
        self.inner = atomic.append_line
        self.seconds = 0.0
        atomic.append_line = self  # type: ignore[assignment]

    def __call__(self, path: Path, line: str) -> None:
        start = time.perf_counter()
        self.inner(path, line)
        self.seconds += time.perf_counter() - start


def _write_chat(home: Home, card: str, entries: int) -> str:
    """A chat of *entries* alternating user/assistant messages, written in one go."""
    chat_id = f"20261130-000000-{entries:04x}"[:20]
    lines = [header_line(chat_id, "2026-11-30T00:00:00Z", card=card, mode="stage")]
    parent = None
    for index in range(entries):
        role = "user" if index % 2 else "assistant"
        text = ("掌柜可还记得镇北渡口的怀瑾公子？" if role == "user" else "青梧放下茶盏，望向窗外的河。") * 4
        entry = message_entry(f"{index:08x}", parent, "2026-11-30T00:00:00Z", {"role": role, "content": text})
        lines.append(entry_line(entry))
        parent = entry.id
    atomic.write_text(home.card_dir(card) / "chats" / chat_id / SESSION_FILE, "\n".join(lines) + "\n")
    return chat_id


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(sizes: list[int], beats: int, freeze: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        home = Home(Path(tmp) / "home")
        seed_home(home)
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        inner = OpenAICompatProvider(server.base_url, "fake-model", "k", profile="generic")
        timed = TimedProvider(inner)

        def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
            return ResolvedProvider(timed, "fake-model", False, "off")  # type: ignore[arg-type]

        app = PearApp(home, provider_factory=factory)
        appends = TimedAppend()
        print(
            f"{'entries':>8} {'open ms':>8} {'engine p50':>11} {'p90':>7} {'cpu p50':>8} {'p90':>7}"
            f" {'fsync p50':>10} {'provider p50':>13} {'cpu-time p50':>13} {'p90':>7}"
        )
        for size in sizes:
            chat_id = _write_chat(home, "青梧", size)
            start = time.perf_counter()
            chat = app.open_chat("青梧", chat_id)
            if freeze:  # move the loaded chat out of the collector's way (docs/benchmarks/assembly.md)
                gc.collect()
                gc.freeze()
            opened = (time.perf_counter() - start) * 1000
            overheads: list[float] = []
            cpu: list[float] = []
            fsync: list[float] = []
            model: list[float] = []
            thread_cpu: list[float] = []
            for beat in range(beats + 5):
                timed.model_seconds = timed.model_cpu = 0.0
                appends.seconds = 0.0
                start, start_cpu = time.perf_counter(), time.thread_time()
                for _event in chat.send("掌柜，今天有什么茶？"):
                    pass
                total = time.perf_counter() - start
                total_cpu = time.thread_time() - start_cpu
                if beat >= 5:  # warm-up beats (connection setup, first imports) are not counted
                    overheads.append((total - timed.model_seconds) * 1000)
                    thread_cpu.append((total_cpu - timed.model_cpu) * 1000)
                    cpu.append((total - timed.model_seconds - appends.seconds) * 1000)
                    fsync.append(appends.seconds * 1000)
                    model.append(timed.model_seconds * 1000)
            assert isinstance(chat.chat, ChatFile)
            print(
                f"{size:>8} {opened:>8.1f} {statistics.median(overheads):>11.2f} {_percentile(overheads, 0.9):>7.2f}"
                f" {statistics.median(cpu):>8.2f} {_percentile(cpu, 0.9):>7.2f} {statistics.median(fsync):>10.2f}"
                f" {statistics.median(model):>13.2f} {statistics.median(thread_cpu):>13.2f}"
                f" {_percentile(thread_cpu, 0.9):>7.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beats", type=int, default=60)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() after opening each chat")
    args = parser.parse_args()
    run([int(s) for s in args.sizes.split(",")], args.beats, args.gc_freeze)


if __name__ == "__main__":
    main()
