"""Benchmark: reading and writing SillyTavern files with ``peargarden.formats``.

Run from the repository root::

    .venv/bin/python bench/bench_formats.py [--runs 20]

Inputs are generated: a PNG of about 2 MB of (incompressible) image data with a card of ~200 KB
(Chinese text, a 500-entry embedded lorebook), the same card as CHARX with that image as its icon,
and a 10,000-message chat JSONL.  Times are p50 over the runs, wall and CPU (``time.thread_time``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import time
import zlib
from collections.abc import Callable
from typing import Any

from peargarden.formats import (
    Card,
    TavernChat,
    TavernMessage,
    card_to_charx,
    card_to_png,
    read_card,
    read_chat_jsonl,
    write_chat_jsonl,
)


def _chunk(ctype: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + ctype + body + struct.pack(">I", zlib.crc32(ctype + body) & 0xFFFFFFFF)


def make_png(size: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", 1024, 1024, 8, 2, 0, 0, 0)
    idat = os.urandom(size)  # stands in for compressed pixels; never decoded
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def make_card() -> Card:
    entries = [
        {
            "id": i,
            "keys": [f"地名{i}", f"人物{i}"],
            "content": "栖水镇的雨下了整整一夜，" * 15,
            "enabled": True,
            "insertion_order": i,
            "extensions": {"depth": 4},
        }
        for i in range(500)
    ]
    return Card.new(
        "青梧",
        description="听雨轩的年轻掌柜。" * 200,
        first_mes="客官，外头雨大，进来坐吧。" * 20,
        character_book={"name": "栖水镇", "entries": entries, "extensions": {}},
    )


def make_chat(count: int) -> bytes:
    chat = TavernChat.new(style="1.12", user_name="小明", character_name="青梧", create_date="2026-11-29@22h38m27s")
    for i in range(count):
        chat.messages.append(
            TavernMessage.new(
                "小明" if i % 2 else "青梧",
                f"第{i}句：雨还没停，灯还亮着。" * 5,
                is_user=bool(i % 2),
                send_date="November 29, 2026 10:38pm",
                swipes=None if i % 2 else [f"备选{i}", f"第{i}句：雨还没停，灯还亮着。" * 5],
            )
        )
    return write_chat_jsonl(chat)


def measure(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.thread_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.thread_time() - c0)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    image = make_png(2 * 1024 * 1024)
    card = make_card()
    png = card_to_png(card, image)
    charx = card_to_charx(card, icon=image)
    chat = make_chat(10_000)
    cases: list[tuple[str, int, Callable[[], Any]]] = [
        ("card → PNG (write chara + ccv3)", len(png), lambda: card_to_png(card, image)),
        ("PNG → card (read, CRCs checked)", len(png), lambda: read_card(png, "c.png")),
        ("card → CHARX (write)", len(charx), lambda: card_to_charx(card, icon=image)),
        ("CHARX → card (read, limits checked)", len(charx), lambda: read_card(charx, "c.charx")),
        ("chat JSONL → TavernChat (10k messages)", len(chat), lambda: read_chat_jsonl(chat, "c.jsonl")),
        ("TavernChat → JSONL (10k messages)", len(chat), lambda: write_chat_jsonl(read_chat_jsonl(chat, "c"))),
    ]
    print("| operation | input size | p50 wall (ms) | p50 CPU (ms) |")
    print("|---|---:|---:|---:|")
    for label, size, fn in cases:
        wall, cpu = measure(fn, runs)
        print(f"| {label} | {size / 1024 / 1024:.2f} MB | {wall:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
