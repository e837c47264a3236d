"""Two source trees, one beat each in turn: what a change does to a ``pear chat --once`` beat on a
20k-message chat (or to ``pear tavern assemble`` on 1k messages × 1k lorebook entries), measured side
by side.

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

``--assemble``: instead of a beat, ``pear tavern assemble --chat ID --message …`` (the next tavern
request, printed, nothing written) on a data folder whose card has a chat of ``--size`` messages (1,000
by default here) that name the keys of a global lorebook of ``--entries`` entries (1,000; the books
and chats of ``bench_tavern.py``); each tree on its own copy, its first run untimed (a tree that keeps
caches in the data folder has made them, as after a person's first command).

``--set-up``: each tree as its own ``scripts/setup.sh`` leaves an editable install (``git archive
<commit> src scripts``): its modules compiled when that set-up compiles them, left without bytecode
otherwise; writing bytecode at run time off (``PYTHONDONTWRITEBYTECODE=1``), as in environments that
set it.  Without it both trees are compiled beforehand into a cache of their own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_sessions import STAMP, write_chat
from bench_tavern import make_chat
from bench_worldinfo import make_book

from peargarden.sessions import entry_line, header_line, message_entry
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.chats import SESSION_FILE
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CHAT_ID = "20261201-999999-play"
WORDS = "掌柜，今天有什么茶？"
BOOK = "千条设定"


def write_tavern_chat(home: Home, messages: int, entries: int) -> None:
    """The card's chat of *messages* naming the keys of a global lorebook of *entries* (config.toml)."""
    (home.lorebooks_dir / f"{BOOK}.json").write_text(json.dumps(make_book(entries, 7), ensure_ascii=False), "utf-8")
    config = home.config_file.read_text(encoding="utf-8")
    home.config_file.write_text(config.replace("lorebooks = []", f'lorebooks = ["{BOOK}"]'), encoding="utf-8")
    lines, parent = [header_line(CHAT_ID, STAMP, card="青梧", mode="tavern")], None
    for number, message in enumerate(make_chat(messages, entries, 11), 1):
        role = "user" if message["is_user"] else "assistant"
        entry = message_entry(f"{number:08x}", parent, STAMP, {"role": role, "content": message["mes"]})
        lines.append(entry_line(entry))
        parent = entry.id
    path = home.card_dir("青梧") / "chats" / CHAT_ID / SESSION_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def set_up_bytecode(tree: Path) -> str:
    """Leave *tree*'s modules as its own set-up leaves them; say which."""
    for cache in (tree / "src").rglob("__pycache__"):
        shutil.rmtree(cache)
    setup = tree / "scripts" / "setup.sh"
    if setup.is_file() and "compileall" in setup.read_text(encoding="utf-8"):
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPYCACHEPREFIX"}
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree / "src" / "peargarden")], env=env, check=True
        )
        return "compiled by its set-up"
    return "no bytecode (its set-up compiles none)"


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
    parser.add_argument("--size", type=int, default=None, help="messages (default 20,000; 1,000 with --assemble)")
    parser.add_argument("--assemble", action="store_true", help="pear tavern assemble instead of a beat")
    parser.add_argument("--entries", type=int, default=1000, help="lorebook entries for --assemble")
    parser.add_argument("--set-up", action="store_true", help="bytecode as each tree's scripts/setup.sh leaves it")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--new-chat", action="store_true")
    parser.add_argument("--steady", action="store_true", help="one copy per tree, beat after beat")
    args = parser.parse_args()
    size = args.size or (1000 if args.assemble else 20000)
    base = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    base.pop("PYTHONPYCACHEPREFIX", None)
    runs: dict[Path, list[float]] = {tree: [] for tree in args.trees}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        server.default_reply = text_reply("客官，", "听雨轩今日有新茶。")
        pristine = Path(tmp) / "pristine"
        seed_home(Home(pristine))
        if args.assemble:
            write_tavern_chat(Home(pristine), size, args.entries)
            beat = ["tavern", "assemble", "--card", "青梧", "--chat", CHAT_ID, "--message", WORDS]
        else:
            write_chat(Home(pristine).card_dir("青梧") / "chats" / CHAT_ID / SESSION_FILE, CHAT_ID, size, args.shape)
            endpoint = ["--base-url", server.base_url, "--model", "fake-model", "--thinking", "off"]
            beat = ["chat", *([] if args.new_chat else ["--chat", CHAT_ID]), "--once", WORDS, *endpoint]
        steady = args.steady or args.assemble
        envs = {}
        for number, tree in enumerate(args.trees):
            envs[tree] = {**base, "PYTHONPATH": str(tree.resolve() / "src")}
            if args.set_up:
                envs[tree]["PYTHONDONTWRITEBYTECODE"] = "1"
                print(f"{tree}: {set_up_bytecode(tree)}", file=sys.stderr)
            else:
                envs[tree]["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / f"pycache-{number}")
                subprocess.run(
                    [sys.executable, "-m", "compileall", "-q", str(tree / "src")], env=envs[tree], check=True
                )
        print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
        for run in range(args.runs):
            for tree in args.trees if run % 2 == 0 else args.trees[::-1]:
                work = Path(tmp) / (f"work-{args.trees.index(tree)}" if steady else "work")
                env = {**envs[tree], "PEARGARDEN_HOME": str(work)}
                if not (steady and work.exists()):
                    shutil.rmtree(work, ignore_errors=True)
                    shutil.copytree(pristine, work, symlinks=True)
                    child_cpu(["sessions", "show", CHAT_ID, "--json"], env)  # the index, untimed
                    if steady:
                        # untimed: a copy's first beat hashes the whole folder into the vault; its
                        # first run makes what a tree caches in the data folder
                        child_cpu(beat, env)
                runs[tree].append(child_cpu(beat, env))
        print(f"load average at end: {os.getloadavg()}", file=sys.stderr)
    for tree, seconds in runs.items():
        quartile = statistics.quantiles(seconds, n=4)[0] if len(seconds) > 1 else seconds[0]
        print(f"{tree!s:40} median {statistics.median(seconds):.3f}  q1 {quartile:.3f}  "
              f"min {min(seconds):.3f}  n={len(seconds)}")  # fmt: skip


if __name__ == "__main__":
    main()
