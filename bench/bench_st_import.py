"""Imported SillyTavern chats: what importing, opening, showing, exporting and playing one costs.

Run from the repository root::

    .venv/bin/python bench/bench_st_import.py [--sizes 20000,100000] [--reply-chars 60] [--repeat 3]

For each size a SillyTavern 1.18 chat file is generated (Chinese text; the user's lines ~40
characters, each reply with three swipes of ``--reply-chars`` characters, the middle one chosen, and
every swipe with its ``swipe_info`` record: send date, generation times, ``extra`` with the model and an
empty reasoning, as SillyTavern writes them), then, in a data folder made by ``pear init``:

- ``import``: ``pear import FILE --card 青梧`` as a child process (CPU from ``wait4``, and its peak
  memory, ``ru_maxrss``), and the size of what it left in the chat's folder against the file;
- ``open``: ``ChatFile.open`` and the active path, in this process (CPU, median of ``--repeat``):
  ``first`` right after the import, ``warm`` after that;
- ``show``: ``pear sessions show ID --json`` as a child process (CPU; the interpreter's start
  included), and its peak memory;
- ``export``: ``pear sessions export ID -o OUT`` as a child process (CPU), and whether OUT is the
  imported file byte for byte;
- ``beat``: ``pear chat --chat ID --once …`` against the fake server
  (:mod:`peargarden.testing.fake_openai`) as a child process, CPU; the first beat on the chat and
  the second; then the size of the chat's folder (session file, index, beat log).

``--before`` runs the children with ``PYTHONPATH`` on another checkout's ``src`` (the code before a
change), for a comparison on the same files.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

USER = "掌柜可还记得镇北渡口的怀瑾公子？那年也是这样的雨天，柳树才抽芽"
REPLY = "青梧放下茶盏，望向窗外的河，半晌才道：“记得。他走的那天，渡口的柳树才抽芽，雨下得和今天一样大。”"


def _date(n: int) -> str:
    return f"2026-11-{1 + n // 86400 % 28:02d}T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.123Z"


def st_chat(messages: int, reply_chars: int) -> bytes:
    """A SillyTavern 1.18 chat file of *messages* messages (header line first)."""
    reply = (REPLY * (reply_chars // len(REPLY) + 1))[:reply_chars]
    extra = {"api": "custom", "model": "deepseek-chat", "reasoning": "", "reasoning_duration": None}
    extra["reasoning_signature"] = None
    metadata = {"integrity": "80db0542-9142-4394-8596-3915f3e83949", "note_prompt": "", "tainted": True}
    rows: list[dict[str, object]] = [{"chat_metadata": metadata, "user_name": "unused", "character_name": "unused"}]
    for n in range(messages):
        if n % 2:
            rows.append({"name": "旅人", "is_user": True, "is_system": False, "send_date": _date(n * 60),
                         "mes": f"{USER}（{n}）", "extra": {"isSmallSys": False, "reasoning": ""},
                         "force_avatar": "/thumbnail?type=persona&file=user-default.png"})  # fmt: skip
            continue
        swipes = [f"{reply}（{n}·其{k}）" for k in range(3)]
        infos = [
            {"send_date": _date(n * 60 + k), "gen_started": _date(n * 60 + k - 5),
             "gen_finished": _date(n * 60 + k), "extra": dict(extra)}
            for k in range(3)
        ]  # fmt: skip
        rows.append({"extra": dict(extra), "name": "青梧", "is_user": False, "send_date": _date(n * 60 + 1),
                     "mes": swipes[1], "title": "", "gen_started": _date(n * 60 - 4), "gen_finished": _date(n * 60 + 1),
                     "swipes": swipes, "swipe_id": 1, "swipe_info": infos})  # fmt: skip
    return "\n".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in rows).encode("utf-8")


def child(args: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """CPU seconds, peak memory (MB), exit code and stderr of ``python -m peargarden ARGS``."""
    proc = subprocess.Popen([sys.executable, "-m", "peargarden", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)  # fmt: skip
    assert proc.stderr is not None
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), err


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def open_cpu(chats: Path, chat_id: str, repeat: int) -> list[float]:
    from peargarden.workspace.chats import ChatFile

    runs = []
    for _ in range(repeat):
        start = time.process_time()
        ChatFile.open(chats, chat_id).tree.path()
        runs.append((time.process_time() - start) * 1000)
    return runs


def measure(size: int, reply_chars: int, repeat: int, env: dict[str, str], server: FakeOpenAIServer) -> None:
    with tempfile.TemporaryDirectory(prefix="pear-st-import-") as folder:
        root = Path(folder)
        home = root / "home"
        source = root / f"雨夜长谈{size}.jsonl"
        data = st_chat(size, reply_chars)
        source.write_bytes(data)
        env = {**env, "PEARGARDEN_HOME": str(home)}
        subprocess.run([sys.executable, "-m", "peargarden", "init"], env=env, check=True, capture_output=True)
        cpu, rss, code, err = child(["import", str(source), "--card", "青梧"], env)
        if code != 0:
            print(f"| {size:,} | {len(data) / 1e6:.1f} MB | import failed ({code}): {err.strip()[:200]} |")
            return
        chats = home / "cards" / "青梧" / "chats"
        (chat_dir,) = [p for p in chats.iterdir() if p.is_dir()]
        kept = folder_bytes(chat_dir)
        first = open_cpu(chats, chat_dir.name, 1)[0]
        warm = statistics.median(open_cpu(chats, chat_dir.name, repeat))
        show = child(["sessions", "show", chat_dir.name, "--json"], env)
        out = root / "out.jsonl"
        export = child(["sessions", "export", chat_dir.name, "-o", str(out)], env)
        same = out.is_file() and out.read_bytes() == data
        beat = ["chat", "--chat", chat_dir.name, "--once", "掌柜，今天有什么茶？", "--base-url", server.base_url,
                "--model", "fake-model", "--thinking", "off"]  # fmt: skip
        beats = [child(beat, env) for _ in range(2)]
        failed = [b[3].strip()[:200] for b in beats if b[2] != 0]
        played = folder_bytes(chat_dir)
        ratio = f"{kept / 1e6:.1f} MB ({kept / len(data):.2f}×)"
        print(
            f"| {size:,} | {len(data) / 1e6:.1f} MB | {cpu:.2f} s, {rss:.0f} MB | {ratio}"
            f" | {first:.0f} / {warm:.0f} | {show[0]:.2f} s, {show[1]:.0f} MB | {export[0]:.2f} s"
            f" ({'same bytes' if same else 'DIFFERENT'}) | {beats[0][0]:.2f} / {beats[1][0]:.2f} s"
            f"{' FAILED ' + repr(failed) if failed else ''} | {played / 1e6:.1f} MB ({played / len(data):.2f}×) |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="20000,100000")
    parser.add_argument("--reply-chars", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", help="a checkout whose src the children run (PYTHONPATH)")
    options = parser.parse_args()
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    if options.before:
        env["PYTHONPATH"] = str(Path(options.before) / "src")
    print(f"python {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}, {options.reply_chars} characters a swipe")
    print()
    print(
        "| messages | file | import: CPU, peak memory | kept in the chat folder | open first / warm (ms CPU)"
        " | `sessions show` | `sessions export` | `chat --once`: first / second beat (CPU) | chat folder after |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        for size in (int(part) for part in options.sizes.split(",")):
            measure(size, options.reply_chars, options.repeat, env, server)


if __name__ == "__main__":
    main()
