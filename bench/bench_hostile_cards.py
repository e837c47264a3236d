"""Benchmark: the hostile cards and replies of issue 46 (points 1, 2 and 7), two source trees side by side.

Each case is one ``pear`` command a user runs — a beat of a card whose zod script keeps the job queue
busy, ``pear vars apply`` with a YAML alias bomb, a new chat's first beat with a one-line ``[initvar]``
seed, a stage beat of a card with a twelve-million-character description … — run as a child process
on each tree in turn (so both see the same load), with a wall-clock cap and an address-space cap: a
child still running at the first is killed and reported as such, one past the second fails with
``MemoryError`` (the machine is shared: the bombs of the old code would take it all).  Measured: the
child's CPU (``wait4``: user + system), its wall time, its peak RSS, its exit code, whether it ended in
a traceback, and for the beats the size of the largest request the fake server received, in millions
of characters of JSON (``Mch``; it answers every request at once).

    .venv/bin/python bench/bench_hostile_cards.py TREE_A TREE_B [--cap 120] [--memory-mb 3072] [--cases …]

Each TREE is a folder holding a ``src/peargarden`` (``git archive <commit> src | tar -x -C TREE``);
both run on this ``.venv``.  The data each case needs is written fresh for every run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from peargarden.app.library.imports import import_files
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CASE = Path(__file__).parents[1] / "tests" / "variables" / "mvu_e2e" / "01-minimal-classic-mvu"
ZOD = "https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js"
MVU = "https://testingcf.jsdelivr.net/gh/MagicalAstrogy/MagVarUpdate/artifact/bundle.js"
REPLY = "小梨把茶钱收好。\n<UpdateVariable>\n_.set('金钱', 90);//收茶钱\n</UpdateVariable>"


def loop(iterations: int) -> str:
    """A JavaScript loop of fixed work (counted, not timed: a busy machine changes its wall time only)."""
    return f"() => {{ let x = 0; for (let k = 0; k < {iterations}; k++) x += k; return x; }}"


def calibrate(seconds: float) -> int:
    """Iterations of :func:`loop` that take *seconds* of CPU in QuickJS on this machine."""
    import quickjs

    context = quickjs.Context()
    n = 2_000_000
    start = time.thread_time()
    context.eval(f"({loop(n)})()")
    spent = max(time.thread_time() - start, 1e-3)
    return int(n * seconds / spent)


def zod_script(body: str) -> str:
    schema = "z.object({ 金钱: z.coerce.number().prefault(0) })"
    return f"const {{ registerMvuSchema }} = await import('{ZOD}');\n{body}\nregisterMvuSchema({schema});"


def card_file(folder: Path, *, scripts: list[str] | None = None, description: str | None = None) -> Path:
    card: dict[str, Any] = json.loads((CASE / "card.json").read_text(encoding="utf-8"))
    if scripts is not None:
        listed = [{"type": "script", "enabled": True, "name": "MVU", "id": "m1", "content": f"import '{MVU}';"}]
        listed += [{"type": "script", "enabled": True, "name": f"变量结构{i}", "id": f"z{i}", "content": code}
                   for i, code in enumerate(scripts)]  # fmt: skip
        card["data"]["extensions"]["tavern_helper"]["scripts"] = listed
    if description is not None:
        card["data"]["description"] = description
    path = folder / "小梨.json"
    path.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    return path


def home_with(root: Path, card: Path, seed: str, mode: str, base_url: str) -> Path:
    """A data folder with the card, its book (its [initvar] entry holding *seed*) mounted, the fake model."""
    home = Home(root)
    seed_home(home)
    book = json.loads((CASE / "小梨变量书.json").read_text(encoding="utf-8"))
    book["entries"]["0"]["content"] = seed
    book_file = root.parent / "小梨变量书.json"
    book_file.write_text(json.dumps(book, ensure_ascii=False), encoding="utf-8")
    import_files(home, [card], book="mount", card=None)
    import_files(home, [book_file], book="mount", card="小梨")
    settings = home.card_dir("小梨") / "卡.json"
    kept = json.loads(settings.read_text(encoding="utf-8"))
    extra = {"userName": "User", "regex_allowed": True, "scripts_allowed": True}
    settings.write_text(json.dumps({**kept, **extra}, ensure_ascii=False), encoding="utf-8")
    home.config_file.write_text(
        f'mode = "{mode}"\n[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{base_url}"\n',
        encoding="utf-8",
    )
    return root


# A case: (folder, base URL) → the pear arguments (after --home).
Case = Callable[[Path, str], list[str]]


def cases(loop_1_3s: int) -> dict[str, Case]:
    spins = "for (let i = 0; i < 8; i++) await Promise.resolve().then(spin);"
    eight_loops = zod_script(f"const spin = {loop(loop_1_3s)};\n{spins}")
    one_loop = zod_script(f"await Promise.resolve().then({loop(loop_1_3s)});")

    def beat(seed: str = "金钱: 100\n", *, scripts: list[str] | None = None, description: str | None = None,
             mode: str = "tavern") -> Case:  # fmt: skip
        def make(folder: Path, base_url: str) -> list[str]:
            home = home_with(folder / "home", card_file(folder, scripts=scripts, description=description),
                             seed, mode, base_url)  # fmt: skip
            return ["--home", str(home), "chat", "--card", "小梨", "--once", "掌柜，结账。", "--thinking", "off"]

        return make

    def apply(variables: Any, reply: str, *, scripts: list[str] | None = None, raw: str | None = None) -> Case:
        def make(folder: Path, _base_url: str) -> list[str]:
            (folder / "home").mkdir(parents=True)
            before = folder / "变量.json"
            before.write_text(raw if raw is not None else json.dumps(variables, ensure_ascii=False), encoding="utf-8")
            reply_file = folder / "回复.txt"
            reply_file.write_text(reply, encoding="utf-8")
            args = ["--home", str(folder / "home"), "vars", "apply"]
            args += ["--variables", str(before), "--reply", str(reply_file)]
            return [*args, "--card", str(card_file(folder, scripts=scripts))] if scripts is not None else args

        return make

    def imported(scripts: list[str]) -> Case:
        def make(folder: Path, _base_url: str) -> list[str]:
            (folder / "home").mkdir(parents=True)
            card = card_file(folder, scripts=scripts)
            return ["--home", str(folder / "home"), "import", str(card), "--regex", "allow", "--scripts", "allow"]

        return make

    def laughs(width: int, levels: int) -> str:
        items = ",".join([f"*l{0}"] * width)
        anchors = [f"l0: &l0 [{','.join(['x'] * width)}]"]
        anchors += [f"l{i}: &l{i} [{items.replace('l0', f'l{i - 1}')}]" for i in range(1, levels)]
        return "{" + ", ".join(anchors) + "}"

    def one_line(chars: int) -> str:
        diary = "梨花落在井边，" * (chars // 7)
        return json.dumps({"角色": {"小梨": {"日记": diary}}, "金钱": 100}, ensure_ascii=False)

    return {
        "zod-8-loops-beat": beat(scripts=[eight_loops]),
        "zod-1-loop-beat": beat(scripts=[one_loop]),
        "zod-8-loops-vars-apply": apply({"金钱": 100}, REPLY, scripts=[eight_loops]),
        "zod-8-loops-import": imported([eight_loops]),
        # Replies of 344 and 404 bytes: anchors 7 and 9 wide, 8 levels (the were 348 and 399).
        "yaml-bomb-7x8-apply": apply({"x": 0}, f"<UpdateVariable>_.set('x', {laughs(7, 8)});</UpdateVariable>"),
        "yaml-bomb-9x8-apply": apply({"x": 0}, f"<UpdateVariable>_.set('x', {laughs(9, 8)});</UpdateVariable>"),
        "initvar-line-20k-beat": beat(one_line(20_000)),
        "initvar-line-40k-beat": beat(one_line(40_000)),
        "vars-apply-500k-value": apply(json.loads(one_line(500_000)), REPLY),
        "initvar-bomb-beat": beat("炸弹: " + laughs(9, 9) + "\n"),
        "initvar-3000-deep-beat": beat("世界: " + "[" * 3000 + "梨园" + "]" * 3000 + "\n"),
        "variables-file-100000-deep": apply(None, REPLY, raw='{"a":' * 100_000 + "1" + "}" * 100_000),
        "stage-12M-description-beat": beat(description="梨园的掌柜。" * 2_000_000, mode="stage"),
    }


def run(args: list[str], env: dict[str, str], cap: float, memory_mb: int) -> dict[str, Any]:
    def limit() -> None:
        size = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    started = time.monotonic()
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen([sys.executable, "-m", "peargarden", *args], env=env, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=errors, preexec_fn=limit)  # fmt: skip
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - started > cap:
                os.killpg(proc.pid, signal.SIGKILL)
                killed = True
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        proc.returncode = 0  # reaped here: the Popen object must not wait for it again
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
    lines = [line for line in stderr.splitlines() if line.strip()]
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "wall": time.monotonic() - started,
        "rss_mb": usage.ru_maxrss / 1024,
        "exit": "killed" if killed else os.waitstatus_to_exitcode(status),
        "traceback": "Traceback" in stderr,
        "memory_error": "MemoryError" in stderr,
        # What the user read: the exception a traceback ends with, else the first warning or error line.
        "said": (lines[-1] if "Traceback" in stderr else next(
            (line for line in lines if line.startswith(("⚠", "pear:"))), lines[-1] if lines else ""))[:140],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--cap", type=float, default=120.0, help="wall seconds before a child is killed")
    parser.add_argument("--memory-mb", type=int, default=3072, help="a child's address-space cap")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    args = parser.parse_args()
    iterations = calibrate(1.3)
    table = cases(iterations)
    chosen = [name for name in args.cases.split(",") if name] or list(table)
    print(f"a 1.3 s loop: {iterations:,} iterations; cap {args.cap:g} s wall, {args.memory_mb} MB; "
          f"load {os.getloadavg()[0]:.1f}")
    base = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    with FakeOpenAIServer() as fake:
        fake.default_reply = text_reply(REPLY)
        for name in chosen:
            for tree in args.trees:
                folder = Path(tempfile.mkdtemp(prefix="pg-hostile-"))
                try:
                    command = table[name](folder, fake.base_url)
                    before = len(fake.chat_requests)
                    env = {**base, "PYTHONPATH": str(tree.resolve() / "src")}
                    result = run(command, env, args.cap, args.memory_mb)
                    sent = [len(json.dumps(r.body, ensure_ascii=False)) for r in fake.chat_requests[before:]]
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
                request = f"{max(sent) / 1e6:.2f} Mch" if sent else "-"
                traceback = ("MemoryError" if result["memory_error"] else "yes") if result["traceback"] else "no"
                print(f"{name:28} {tree.name:10} cpu {result['cpu']:7.2f} s  wall {result['wall']:7.1f} s  "
                      f"rss {result['rss_mb']:7.0f} MB  exit {result['exit']!s:6} largest request {request:9} "
                      f"traceback {traceback:3}  | {result['said']}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
