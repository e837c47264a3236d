"""The asset vault once it keeps its fifty snapshots: what one more costs (retention drops the oldest
and collects the objects nobody refers to any more), side by side for source trees.

A person's data folder reaches fifty snapshots within days (one after every beat's writes), and from
then on every snapshot runs retention.  This builds a data folder of ``--cards`` cards with
``--chats`` chats each (plus the seeded library), takes fifty-five snapshots with one file changed
before each, then measures the CPU of one more snapshot (a file changed, retention, collection) and of
a collection alone, in a new process per tree, the trees alternated run by run:

    .venv/bin/python bench/bench_vault_retention.py --runs 7 TREE_A TREE_B

Each TREE holds a ``src/peargarden`` (``git archive <commit> src | tar -x -C TREE``); without trees,
this checkout's code is measured.
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

_PROBE = """
import json, sys, time
from pathlib import Path
from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault
home = Path(sys.argv[1])
vault = Vault(Home(home))
note = home / "cards" / "卡0" / "笔记.md"
note.write_text("又改了一次", encoding="utf-8")
start = time.process_time()
vault.snapshot("write")
snapshot = time.process_time() - start
start = time.process_time()
vault.gc()
collect = time.process_time() - start
print(json.dumps({"snapshot": snapshot, "collect": collect}))
"""


def make_home(root: Path, cards: int, chats: int) -> int:
    """A seeded data folder with *cards* × *chats* chat files and fifty-five snapshots; returns its
    number of files."""
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home
    from peargarden.workspace.vault import Vault

    seed_home(Home(root))
    for card in range(cards):
        for chat in range(chats):
            session = root / "cards" / f"卡{card}" / "chats" / f"20261201-{chat:06d}-bench" / "session.jsonl"
            session.parent.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps({"第": n, "卡": card, "话": "客官里边请"}, ensure_ascii=False) for n in range(40)]
            session.write_text("\n".join(lines) + "\n", encoding="utf-8")
    vault = Vault(Home(root))
    note = root / "cards" / "卡0" / "笔记.md"
    for round_ in range(55):
        note.write_text(f"第{round_}次修改", encoding="utf-8")
        vault.snapshot("write")
    return sum(1 for path in root.rglob("*") if path.is_file() and "vault" not in path.parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--cards", type=int, default=30)
    parser.add_argument("--chats", type=int, default=15)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    trees = args.trees or [Path(__file__).resolve().parents[1]]
    with tempfile.TemporaryDirectory(prefix="pear-bench-retention-") as scratch:
        pristine = Path(scratch) / "pristine"
        files = make_home(pristine, args.cards, args.chats)
        results: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
        print(f"data folder: {files} files, 55 snapshots; load at start {os.getloadavg()[0]:.1f}", file=sys.stderr)
        for run in range(args.runs):
            for tree in trees if run % 2 == 0 else trees[::-1]:
                work = Path(scratch) / "work"
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(pristine, work, symlinks=True)
                env = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
                done = subprocess.run(
                    [sys.executable, "-c", _PROBE, str(work)], env=env, capture_output=True, text=True, check=True
                )
                results[tree].append(json.loads(done.stdout))
        print(f"load at end {os.getloadavg()[0]:.1f}", file=sys.stderr)
    for tree, runs in results.items():
        snapshot = statistics.median(r["snapshot"] for r in runs) * 1000
        collect = statistics.median(r["collect"] for r in runs) * 1000
        print(
            f"{tree!s:40s} snapshot with retention {snapshot:6.1f} ms   collection alone {collect:6.1f} ms"
            f"  (CPU, median of {len(runs)})"
        )


if __name__ == "__main__":
    main()
