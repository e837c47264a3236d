"""Benchmark: a card's remote module, fetched once against played from the data folder (issue 45 item 4).

Run from the repository root::

    .venv/bin/python bench/bench_remote_modules.py [--runs 20] [--kb 90,1000]

A local fake CDN (``peargarden.testing.fake_cdn``, real HTTP on loopback) serves a module made of
jQuery's minified text (the XStatic package's, as a real library's bytes) repeated to each size, with
two imports by absolute path as jsdelivr's ``+esm`` bundles have.  For each size, side by side in one
run: the first load (the HTTP GET, the bytes kept content-addressed, the pin written to ``卡.json``, the
imports read) in a fresh data folder each time, and the load the chat page makes every time after
(the pin read, the bytes read and checked against their sha256, the imports read).  Median wall and
CPU time of this process, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from importlib import resources
from pathlib import Path

from peargarden.app.play.remote_modules import answer_host, card_module
from peargarden.testing.fake_cdn import FakeCdn
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CARD = "青梧"


def _module(kb: int) -> str:
    jquery = (resources.files("xstatic.pkg.jquery") / "data" / "jquery.min.js").read_text(encoding="utf-8")
    head = 'import a from "/npm/甲@1/+esm";\nimport "/npm/乙@2/+esm";\n'
    body = (jquery * (kb * 1024 // len(jquery) + 1))[: kb * 1024]
    return head + body


def _timed(home: Home, url: str) -> tuple[float, float]:
    """Wall and CPU time of one load of *url* for the card in *home*."""
    wall, cpu = time.perf_counter(), time.process_time()
    card_module(home, CARD, url)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--kb", default="90,1000")
    args = parser.parse_args()
    with FakeCdn() as cdn, tempfile.TemporaryDirectory() as scratch:
        for kb in (int(size) for size in args.kb.split(",")):
            url = cdn.add(f"/npm/库{kb}@1.0.0/+esm", _module(kb))
            first: list[tuple[float, float]] = []
            after: list[tuple[float, float]] = []
            for run in range(args.runs):
                home = Home(Path(scratch) / f"{kb}-{run}")
                seed_home(home)
                answer_host(home, CARD, cdn.host, True)
                first.append(_timed(home, url))
                after.append(_timed(home, url))
            wall_a, cpu_a = (statistics.median(x[i] for x in first) for i in (0, 1))
            wall_b, cpu_b = (statistics.median(x[i] for x in after) for i in (0, 1))
            print(f"{kb:>5} KB  first load {wall_a * 1000:7.2f} ms wall {cpu_a * 1000:7.2f} ms CPU   "
                  f"from the data folder {wall_b * 1000:6.2f} ms wall {cpu_b * 1000:6.2f} ms CPU   "
                  f"CPU ratio {cpu_a / cpu_b if cpu_b else float('inf'):.1f}×")  # fmt: skip
        print(f"requests: {sum(cdn.requests.values())} for {args.runs} runs per size (one per fresh data folder)")


if __name__ == "__main__":
    main()
