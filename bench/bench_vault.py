"""Asset-vault speed: unchanged-library snapshot, first snapshot vs ``cp -r``, one-edit snapshot.

Run on demand (not part of the test suite):

    .venv/bin/python bench/bench_vault.py            # 1,000 lorebooks, ~100 MB, in a temp folder
    .venv/bin/python bench/bench_vault.py --books 200 --kib 50

Targets (issue 7): a snapshot of an unchanged library of 1,000 lorebooks (>= 100 MB) takes <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from peargarden.workspace.home import Home
from peargarden.workspace.vault import Vault

PLACES = "栖水镇青梧山白露书院雾隐江湖长亭古道烟雨楼台"


def make_books(home: Path, books: int, kib: int, seed: int = 7) -> int:
    """*books* SillyTavern-style lorebooks of about *kib* KiB each, all different; returns total bytes."""
    rng = random.Random(seed)
    folder = home / "library" / "lorebooks"
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    for n in range(books):
        entries = {}
        size = 0
        uid = 0
        while size < kib * 1024:
            content = "".join(rng.choice(PLACES) for _ in range(400))
            entries[str(uid)] = {"uid": uid, "key": [f"词{n}-{uid}"], "content": content}
            size += len(content.encode("utf-8")) + 60
            uid += 1
        data = json.dumps({"name": f"世界书{n:04d}", "entries": entries}, ensure_ascii=False).encode("utf-8")
        (folder / f"世界书{n:04d}.json").write_bytes(data)
        total += len(data)
    return total


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--books", type=int, default=1000)
    parser.add_argument("--kib", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pear-bench-vault-") as scratch:
        root = Path(scratch)
        home = root / "home"
        total = make_books(home, args.books, args.kib)
        mb = total / 1e6
        subprocess.run(["sync"], check=False)

        copy_target = root / "copy"
        cp = timed(lambda: subprocess.run(["cp", "-r", str(home), str(copy_target)], check=True))
        cp_sync = cp + timed(lambda: subprocess.run(["sync"], check=False))
        shutil.rmtree(copy_target)
        subprocess.run(["sync"], check=False)

        # Let the files age past the stat cache's "racy" window so their hashes can be remembered.
        time.sleep(2.1)
        vault = Vault(Home(home))
        first = timed(lambda: vault.snapshot("bench-first"))
        unchanged = [timed(lambda: vault.snapshot("bench-unchanged")) for _ in range(args.repeat)]
        assert len(vault.snapshots()) == 1, "an unchanged library must not make a new snapshot"

        book = home / "library" / "lorebooks" / "世界书0000.json"
        book.write_bytes(book.read_bytes().replace("栖".encode(), "溪".encode(), 1))
        one_edit = timed(lambda: vault.snapshot("bench-one-edit"))

    print(f"library: {args.books} lorebooks, {mb:.1f} MB  (python {sys.version.split()[0]})")
    print(f"cp -r:                      {cp:6.2f} s  ({mb / cp:6.1f} MB/s)")
    print(f"cp -r + sync:               {cp_sync:6.2f} s  ({mb / cp_sync:6.1f} MB/s)")
    print(f"first snapshot:             {first:6.2f} s  ({mb / first:6.1f} MB/s, every object fsynced)")
    print(
        f"unchanged snapshot:         {statistics.median(unchanged):6.3f} s median, "
        f"{max(unchanged):6.3f} s max of {args.repeat}  (target <= 0.5 s)"
    )
    print(f"snapshot after one edit:    {one_edit:6.3f} s")


if __name__ == "__main__":
    main()
