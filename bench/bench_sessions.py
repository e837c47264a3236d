"""Long chats: what opening, listing, showing, playing and exporting a 10k / 20k-message chat costs.

For each size and shape a chat is written to a temporary data folder:

- ``plain``: N messages, user and assistant alternating (Chinese text, ~30 and ~150 characters);
- ``swipes``: the same, every reply with two more swipes beside it (ST import shape: siblings, the
  chosen one in the middle), and every 100 messages a side branch of 10 messages left behind by a
  ``/branch`` (the leaf moved back), so the file holds about 2.2 N entries;
- ``summarised``: ``plain`` caught up by story memory, as a chat played here is: a relay summary
  (``story-summary``) covers all but its last 12 messages, so a beat has nothing due to compact
  (``plain`` and ``swipes`` are long histories never summarised: every beat compacts one more
  bounded step of them, as after an import).

Then, CPU time of this process (``time.process_time``; the load of other processes does not count),
the median of ``--repeat`` runs, milliseconds:

- ``open``: ``ChatFile.open`` (read, decode, build the tree) and the active path (``tree.path()``:
  before the 2026-12-02 05:00 change it was not asked for, and a chat with swipes, whose file ends
  with a leaf move, computed it only when first read), through the chat's session index (since
  the 2026-12-02 08:00 change; before it, every open read the file whole);
- ``cold``: the same with the session index removed before each run: the first open of a chat (a
  full read, and the index written);
- ``list``: ``pear sessions list --json`` over 100 chats of this size (hard links of one file), cold
  (no summaries yet) and warm (summaries kept, nothing changed);
- ``show``: ``pear sessions show ID --json`` (the active branch as JSON);
- ``beat``: a stage beat's engine overhead against the fake server (the beat thread's CPU outside the
  provider's stream, as in ``bench_engine.py``), story memory off, default ``[story]`` budget;
- ``tavern``: the same for a tavern-mode beat (SillyTavern's assembly over the chat);
- ``assemble``: ``pear tavern assemble --chat ID`` (the chat exported, then assembled);
- ``export``: ``pear sessions export ID -o FILE``.

    .venv/bin/python bench/bench_sessions.py [--sizes 10000,20000] [--shapes plain,swipes] [--repeat 3]

``--processes`` measures what a person pays instead: each command as its own ``python -m peargarden``
process (the interpreter's start and imports included; CPU from ``wait4``, median of ``--repeat``):
``sessions show ID --json``, ``sessions export ID -o FILE``, and ``chat --chat ID --once …`` against
the fake server (story memory on, as the flags make it: the side model follows the endpoint), the
first beat after the chat was written and the median of the beats after it; and, for scale, ``chat
--once`` on a new chat of the same data folder.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_engine import TimedProvider  # type: ignore[import-not-found]

import peargarden
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.cli import main as pear
from peargarden.modes.stage.memory import SUMMARY_TYPE
from peargarden.providers.openai_compat import OpenAICompatProvider
from peargarden.sessions import custom_entry, entry_line, header_line, leaf_line, message_entry
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chats import INDEX_FILE, SESSION_FILE, ChatFile
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

STAMP = "2026-12-01T00:00:00.000Z"
USER = "掌柜可还记得镇北渡口的怀瑾公子？那年也是这样的雨天。"
REPLY = "青梧放下茶盏，望向窗外的河，半晌才道：“记得。他走的那天，渡口的柳树才抽芽，" * 3


def write_chat(path: Path, chat_id: str, messages: int, shape: str) -> int:
    """The session file of one chat; returns how many entries it holds."""
    lines = [header_line(chat_id, STAMP, card="青梧", mode="stage")]
    counter = 0

    def add(parent: str | None, role: str, text: str) -> str:
        nonlocal counter
        counter += 1
        entry = message_entry(f"{counter:08x}", parent, STAMP, {"role": role, "content": text})
        lines.append(entry_line(entry))
        return entry.id

    parent: str | None = None
    covered_through = messages - 13 if shape == "summarised" else -1
    for index in range(messages):
        role = "user" if index % 2 else "assistant"
        text = f"{USER}（{index}）" if role == "user" else f"{REPLY}（{index}）"
        if shape == "swipes" and role == "assistant":
            swipes = [add(parent, role, f"{text}·其{n}") for n in range(3)]
            parent = swipes[1]
            lines.append(leaf_line(parent, STAMP))
        else:
            parent = add(parent, role, text)
        if index == covered_through:
            counter += 1
            summary = {"summary": "## 前情提要\n青梧与怀瑾公子旧事。", "coversThroughId": parent, "turns": index // 2}
            lines.append(entry_line(custom_entry(f"{counter:08x}", parent, STAMP, SUMMARY_TYPE, summary)))
            parent = f"{counter:08x}"
        if shape == "swipes" and index % 100 == 99:
            side = parent
            for n in range(10):
                side = add(side, "user" if n % 2 == 0 else "assistant", f"岔路{index}-{n}")
            lines.append(leaf_line(parent, STAMP))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return counter


def cpu_ms(action: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.process_time()
        action()
        runs.append((time.process_time() - start) * 1000)
    return statistics.median(runs)


def open_ms(chats: Path, chat_id: str, repeat: int, *, cold: bool) -> float:
    """CPU ms of an open and its active path; *cold*: with no session index yet (removed first)."""
    runs = []
    for _ in range(repeat):
        if cold:
            (chats / chat_id / INDEX_FILE).unlink(missing_ok=True)
        start = time.process_time()
        ChatFile.open(chats, chat_id).tree.path()
        runs.append((time.process_time() - start) * 1000)
    return statistics.median(runs)


def quiet(*args: str) -> Callable[[], None]:
    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            pear(list(args))

    return run


def beat_ms(app: PearApp, timed: TimedProvider, chat_id: str, mode: str, beats: int) -> float:
    session = app.open_chat("青梧", chat_id, ChatOptions(mode=mode, thinking="off"))
    runs = []
    for beat in range(beats + 2):
        timed.model_cpu = 0.0
        start = time.thread_time()
        for _event in session.send("掌柜，今天有什么茶？"):
            pass
        if beat >= 2:  # warm-up beats (connections, first imports, caches) are not counted
            runs.append((time.thread_time() - start - timed.model_cpu) * 1000)
    return statistics.median(runs)


def measure(size: int, shape: str, repeat: int, beats: int) -> str:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        home = Home(Path(tmp) / "home")
        seed_home(home)
        os.environ["PEARGARDEN_HOME"] = str(home.root)
        chats = home.card_dir("青梧") / "chats"
        first = chats / "20261201-000000-0000" / SESSION_FILE
        entries = write_chat(first, first.parent.name, size, shape)
        for n in range(1, 100):
            (chats / f"20261201-000000-{n:04d}").mkdir()
            os.link(first, chats / f"20261201-000000-{n:04d}" / SESSION_FILE)
        played = chats / "20261201-999999-play" / SESSION_FILE
        chat_id = played.parent.name
        write_chat(played, chat_id, size, shape)
        first_open = open_ms(chats, chat_id, repeat, cold=True)
        opened = open_ms(chats, chat_id, repeat, cold=False)
        listing = quiet("sessions", "list", "--card", "青梧", "--json")
        cold = cpu_ms(listing, 1)
        warm = cpu_ms(listing, repeat)
        show = cpu_ms(quiet("sessions", "show", chat_id, "--json"), repeat)
        export = cpu_ms(quiet("sessions", "export", chat_id, "-o", str(Path(tmp) / "out.jsonl")), repeat)
        assemble = cpu_ms(quiet("tavern", "assemble", "--card", "青梧", "--chat", chat_id, "--message", "你好"), repeat)
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        timed = TimedProvider(OpenAICompatProvider(server.base_url, "fake-model", "k", profile="generic"))

        def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
            return ResolvedProvider(timed, "fake-model", False, "off")

        app = PearApp(home, provider_factory=factory, story_memory=False)
        stage = beat_ms(app, timed, chat_id, "stage", beats)
        tavern = beat_ms(app, timed, chat_id, "tavern", beats)
        return (
            f"{size:>8} {shape:>7} {entries:>8} {opened:>7.0f} {first_open:>7.0f} {cold:>10.0f} {warm:>10.0f}"
            f" {show:>7.0f} {stage:>7.1f} {tavern:>7.1f} {assemble:>9.0f} {export:>7.0f}"
        )


def child_cpu(args: list[str], env: dict[str, str]) -> float:
    """CPU seconds of ``python -m peargarden ARGS`` (user + system, from ``wait4``)."""
    proc = subprocess.Popen([sys.executable, "-m", "peargarden", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench_sessions: pear {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def measure_processes(size: int, shape: str, repeat: int) -> str:
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        home = Home(Path(tmp) / "home")
        seed_home(home)
        env = {**os.environ, "PEARGARDEN_HOME": str(home.root), "PYTHONIOENCODING": "utf-8"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        # Every module compiled once, before anything is timed.
        package = Path(peargarden.__file__).parent
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], env=env, check=True)
        played = home.card_dir("青梧") / "chats" / "20261201-999999-play" / SESSION_FILE
        chat_id = played.parent.name
        entries = write_chat(played, chat_id, size, shape)
        endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        beat = ["chat", "--chat", chat_id, "--once", "掌柜，今天有什么茶？", *endpoint]
        first = child_cpu(beat, env)  # the first open writes the session index
        later_runs, growth = [], []
        for _ in range(repeat):
            vault_before = folder_bytes(home.vault_dir)
            later_runs.append(child_cpu(beat, env))
            growth.append(folder_bytes(home.vault_dir) - vault_before)
        later = statistics.median(later_runs)
        show = statistics.median(child_cpu(["sessions", "show", chat_id, "--json"], env) for _ in range(repeat))
        out = str(Path(tmp) / "out.jsonl")
        exporting = ["sessions", "export", chat_id, "-o", out]
        export = statistics.median(child_cpu(exporting, env) for _ in range(repeat))
        new_chat = ["chat", "--once", "掌柜，今天有什么茶？", *endpoint]
        fresh = statistics.median(child_cpu(new_chat, env) for _ in range(repeat))
        grown = statistics.median(growth) / 1024 / 1024
        figures = f"{show:>7.2f} {export:>7.2f} {first:>7.2f} {later:>7.2f} {fresh:>7.2f} {grown:>9.2f} MB"
        return f"{size:>8} {shape:>7} {entries:>8} {figures}"


def run_processes(sizes: list[int], shapes: list[str], repeat: int) -> None:
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    columns = " ".join(f"{name:>7}" for name in ("show", "export", "beat 1", "beat", "new"))
    print(f"{'messages':>8} {'shape':>7} {'entries':>8} {columns} {'vault/beat':>12}")
    for size in sizes:
        for shape in shapes:
            print(measure_processes(size, shape, repeat), flush=True)
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)


def run(sizes: list[int], shapes: list[str], repeat: int, beats: int) -> None:
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    print(
        f"{'messages':>8} {'shape':>7} {'entries':>8} {'open':>7} {'cold':>7} {'list cold':>10} {'list warm':>10}"
        f" {'show':>7} {'beat':>7} {'tavern':>7} {'assemble':>9} {'export':>7}"
    )
    for size in sizes:
        for shape in shapes:
            print(measure(size, shape, repeat, beats), flush=True)
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,20000")
    parser.add_argument("--shapes", default="plain,swipes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--beats", type=int, default=5)
    parser.add_argument("--processes", action="store_true", help="each command as its own process (seconds)")
    args = parser.parse_args()
    sizes, shapes = [int(s) for s in args.sizes.split(",")], args.shapes.split(",")
    if args.processes:
        run_processes(sizes, shapes, args.repeat)
        return
    run(sizes, shapes, args.repeat, args.beats)


if __name__ == "__main__":
    main()
