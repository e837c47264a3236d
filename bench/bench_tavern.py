"""Benchmark: one SillyTavern-exact Chat Completion assembly (tavern mode).

Run from the repository root::

    .venv/bin/python bench/bench_tavern.py [--runs 30]

For chats of 100 / 1k / 10k messages × one global lorebook of 100 / 1k / 10k entries we time
``peargarden.tavern.assemble.generate`` — macros, prompt-time regex, world info activation, the
Prompt Manager collection, in-chat injections and the budgeted history / example fill — on the
oracle's default settings (context 4095, response 300, scan depth 2, recursion and whole words on,
an Author's Note at depth 4, a character's note, two regex scripts).  Token counts are tiktoken
cl100k (offline), cached per text across runs as a long-lived session would.  Each configuration
first runs once to warm the caches, then ``--runs`` times; p50 / p90 wall time and p50 CPU time
(``time.thread_time``) are printed as a Markdown table.

A second table rebuilds the ``TavernState`` for every generation, as tavern mode in ``pear chat``
does for each beat (1k messages): once with one ``LorebookCache`` shared by all the states (what
tavern mode keeps per chat) and once with a fresh cache each time (every book parsed again and the
engine's per-entry plans rebuilt, as before the cache was shared).
"""

from __future__ import annotations

import argparse
import copy
import random as stdlib_random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bench_worldinfo import PEOPLE, PLACES, make_book

from peargarden.tavern.assemble import generate
from peargarden.tavern.defaults import DEFAULT_OAI
from peargarden.tavern.state import TavernState, effective_settings
from peargarden.tavern.version import for_version
from peargarden.text.tokens import counter_for_model
from peargarden.worldinfo.sources import LorebookCache

CARD: dict[str, Any] = {
    "name": "林月",
    "description": "{{char}}是杭州一家茶馆的老板，二十四岁。她说话温柔，喜欢用茶来比喻人生。",
    "personality": "温柔，细心，有点爱开玩笑",
    "scenario": "{{user}}在一个下雨的午后走进了{{char}}的茶馆。",
    "first_mes": "*林月从茶壶边抬起头。* 欢迎光临，{{user}}！",
    "mes_example": "<START>\n{{user}}: 你推荐什么茶？\n{{char}}: 今天下雨，来一杯龙井吧。",
    "data": {
        "name": "林月",
        "extensions": {"depth_prompt": {"prompt": "[{{char}}想带{{user}}去西湖走走]", "depth": 4, "role": "system"}},
    },
}

REGEX = [
    {
        "findRegex": "/雷峰塔/g",
        "replaceString": "雷峰塔（{{char}}最喜欢的地方）",
        "placement": [1, 2],
        "promptOnly": True,
    },
    {"findRegex": "/\\*(.+?)\\*/g", "replaceString": "($1)", "placement": [2], "minDepth": 2},
]


def make_chat(length: int, book_size: int, seed: int) -> list[dict[str, Any]]:
    rng = stdlib_random.Random(seed)
    chat: list[dict[str, Any]] = []
    for i in range(length):
        user = i % 2 == 1
        mention = f"{rng.choice(PLACES)}{rng.randrange(book_size)}"
        text = f"第{i}条消息：我们去{mention}喝茶吧，{rng.choice(PEOPLE)}说那里的龙井很好。*她笑了笑*"
        chat.append({"name": "小明" if user else "林月", "is_user": user, "is_system": False, "mes": text, "extra": {}})
    return chat


def make_state(
    chat: list[dict[str, Any]],
    book: dict[str, Any],
    counter: Any,
    lorebooks: LorebookCache | None = None,
    version: str = "1.12",
) -> TavernState:
    st = effective_settings(
        {
            "world_info_settings": {"world_info": {"globalSelect": ["基准世界书"]}},
            "extension_settings": {"regex": REGEX},
        },
        version,
    )
    oai = copy.deepcopy(DEFAULT_OAI if version == "1.12" else st["oai_settings"])
    oai.update({"chat_completion_source": "custom", "custom_model": "gpt-3.5-turbo"})
    state = TavernState(
        oai=oai,
        power_user=st["power_user"],
        extension_settings=st["extension_settings"],
        wi_settings=st["world_info_settings"],
        user_name="小明",
        card=copy.deepcopy(CARD),
        avatar="林月.png",
        chat=chat,
        chat_metadata={"note_prompt": "[作者注：窗外的雨越下越大]"},
        worlds={"基准世界书": book},
        counter=counter,
        random=stdlib_random.Random(1).random,
        compat=for_version(version, st["power_user"]),
    )
    if lorebooks is not None:
        state.lorebooks = lorebooks
    return state


def rebuilt_state_runs(
    chat_size: int, book_size: int, runs: int, counter: Any, version: str = "1.12"
) -> tuple[float, float]:
    """p50 CPU ms of a generation on a freshly built state: (shared LorebookCache, fresh cache)."""
    chat = make_chat(chat_size, book_size, seed=7)
    book = make_book(book_size, seed=book_size)
    shared = LorebookCache()
    generate(make_state(chat, book, counter, shared, version))  # warm: token counts and the shared books
    results = []
    for lorebooks in (shared, None):
        cpu = []
        for _ in range(runs):
            fresh = lorebooks if lorebooks is not None else LorebookCache()
            state = make_state(chat, book, counter, fresh, version)
            cpu_start = time.thread_time()
            generate(state)
            cpu.append(time.thread_time() - cpu_start)
        results.append(statistics.median(cpu) * 1000)
    return results[0], results[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--st-version", default="1.12", choices=("1.12", "1.18"), help="SillyTavern release to match")
    parser.add_argument("--chat-sizes", default="100,1000,10000")
    parser.add_argument("--book-sizes", default="100,1000,10000")
    args = parser.parse_args()
    chat_sizes = [int(x) for x in args.chat_sizes.split(",")]
    book_sizes = [int(x) for x in args.book_sizes.split(",")]
    counter = counter_for_model("gpt-3.5-turbo")
    rows = []
    for chat_size in chat_sizes:
        for book_size in book_sizes:
            chat, book = make_chat(chat_size, book_size, seed=7), make_book(book_size, seed=book_size)
            state = make_state(chat, book, counter, version=args.st_version)
            generate(state)  # warm: token and book caches, as in a running session
            wall, cpu = [], []
            messages = 0
            for _ in range(args.runs):
                start, cpu_start = time.perf_counter(), time.thread_time()
                result = generate(state)
                wall.append(time.perf_counter() - start)
                cpu.append(time.thread_time() - cpu_start)
                messages = len(result.messages)
            wall.sort()
            rows.append(
                (
                    chat_size,
                    book_size,
                    statistics.median(wall) * 1000,
                    wall[int(len(wall) * 0.9) - 1] * 1000,
                    statistics.median(cpu) * 1000,
                    messages,
                )
            )
    print(f"runs per configuration: {args.runs}, SillyTavern {args.st_version}")
    print("| chat messages | lorebook entries | p50 wall (ms) | p90 wall (ms) | p50 CPU (ms) | messages sent |")
    print("|---:|---:|---:|---:|---:|---:|")
    for chat_size, book_size, p50, p90, cpu_ms, messages in rows:
        print(f"| {chat_size:,} | {book_size:,} | {p50:.2f} | {p90:.2f} | {cpu_ms:.2f} | {messages} |")
    print()
    print("state rebuilt for every generation (tavern mode), 1,000 messages:")
    print("| lorebook entries | p50 CPU, shared LorebookCache (ms) | p50 CPU, books parsed again (ms) |")
    print("|---:|---:|---:|")
    for book_size in book_sizes:
        shared_ms, fresh_ms = rebuilt_state_runs(1_000, book_size, args.runs, counter, args.st_version)
        print(f"| {book_size:,} | {shared_ms:.2f} | {fresh_ms:.2f} |")


if __name__ == "__main__":
    main()
