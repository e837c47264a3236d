"""Two source trees, one beat each in turn: what a change does to a ``pear chat --once`` beat on a
20k-message chat, measured side by side.

Runs one after the other drift with the machine's other load by more than the changes one wants to
see (±10 – 30 % here); alternating the trees beat by beat puts both under the same load.  Each beat
runs on a fresh copy of one data folder (written once by ``bench_sessions.write_chat``), its session
index rebuilt by an untimed ``pear sessions show`` first, so every beat of either tree starts from
the same state.  The copy has new inodes, so the asset vault hashes the whole folder at each beat,
in both trees alike.  CPU of the ``pear`` child (``wait4``); median, first quartile and minimum.

    .venv/bin/python bench/bench_paired_beats.py --shape swipes --runs 12 TREE_A TREE_B

Each TREE is a folder holding a ``src/peargarden`` (``git archive <commit> src | tar -x -C TREE``);
both run on this ``.venv``.  ``--new-chat`` plays a new chat of the same folder instead.
``--steady``: each tree plays beat after beat on its own copy, made once (as a person's chat goes:
the asset vault has seen the folder, so only what the last beat changed is hashed again).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_sessions import write_chat

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chats import SESSION_FILE
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CHAT_ID = "20261201-999999-play"
WORDS = "掌柜，今天有什么茶？"


def child_cpu(args: list[str], env: dict[str, str]) -> float:
    proc = subprocess.Popen([sys.executable, "-m", "peargarden", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench_paired_beats: pear {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--shape", default="swipes", choices=("plain", "summarised", "swipes"))
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--new-chat", action="store_true")
    parser.add_argument("--steady", action="store_true", help="one copy per tree, beat after beat")
    args = parser.parse_args()
    base = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    runs: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        pristine = Path(tmp) / "pristine"
        seed_home(Home(pristine))
        write_chat(Home(pristine).card_dir("青梧") / "chats" / CHAT_ID / SESSION_FILE, CHAT_ID, args.size, args.shape)
        endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
        beat = ["chat", *([] if args.new_chat else ["--chat", CHAT_ID]), "--once", WORDS, *endpoint]
        envs = {}
        for number, tree in enumerate(args.trees):
            cache = str(Path(tmp) / f"pycache-{number}")
            envs[tree] = {**base, "PYTHONPATH": str(tree.resolve() / "src"), "PYTHONPYCACHEPREFIX": cache}
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")], env=envs[tree], check=True)
        print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
        for run in range(args.runs):
            for tree in args.trees if run % 2 == 0 else args.trees[::-1]:
                work = Path(tmp) / (f"work-{args.trees.index(tree)}" if args.steady else "work")
                env = {**envs[tree], "PEARGARDEN_HOME": str(work)}
                if not (args.steady and work.exists()):
                    shutil.rmtree(work, ignore_errors=True)
                    shutil.copytree(pristine, work, symlinks=True)
                    child_cpu(["sessions", "show", CHAT_ID, "--json"], env)  # the index, untimed
                    if args.steady:
                        child_cpu(beat, env)  # the first beat of a copy hashes the whole folder: untimed
                runs[tree].append(child_cpu(beat, env))
        print(f"load average at end: {os.getloadavg()}", file=sys.stderr)
    for tree, seconds in runs.items():
        quartile = statistics.quantiles(seconds, n=4)[0] if len(seconds) > 1 else seconds[0]
        print(f"{tree!s:40} median {statistics.median(seconds):.3f}  q1 {quartile:.3f}  "
              f"min {min(seconds):.3f}  n={len(seconds)}")  # fmt: skip


if __name__ == "__main__":
    main()
