"""Stage assembly with large lorebooks: one beat's system prompt, keyword scan, index and messages.

Builds books of 100 / 1,000 / 10,000 Chinese entries (keys of 2–4 characters, one constant entry in
fifty), a card, the prompt files and a chat of 40 messages, then times:

* ``cold load``: normalising the book JSON (fingerprints included) and building the corpus — what the
  first beat after a book changed pays;
* ``corpus``: building the :class:`LoreCorpus` (Aho-Corasick automaton + title index) — once per set of
  books, cached between beats by the materials loader;
* ``assemble``: :func:`assemble_beat` on the cached corpus — the per-beat cost (target ≤ 20 ms p50 at
  10k entries);
* ``search``: one ``lorebook_search`` over the whole corpus;
* ``beat from disk``: what a real beat pays before the model call — ``load_stage_materials`` on a seeded
  data folder (temporary) with the book mounted on 青梧 (prompt files and card read, corpus cache hit)
  plus the assembly.

Usage: ``.venv/bin/python bench/bench_stage.py [--runs N] [--sizes 100,1000,10000]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from peargarden.stage import LoreCorpus, PromptFiles, StageCard, StageSettings, Turn, assemble_beat
from peargarden.stage.lore.entries import LoreEntry, entries_from_book, merge_books
from peargarden.stage.lore.search import search_entries

HAN = "山水风雨云雪花月江河湖海松竹梅兰楼台亭阁桥渡口镇村街巷茶酒灯伞舟船书画琴棋剑刀门院井柳桃杏梨"


def make_entries(count: int, rng: random.Random) -> list[LoreEntry]:
    entries: list[LoreEntry] = []
    for index in range(count):
        title = "".join(rng.choice(HAN) for _ in range(rng.randint(2, 4))) + f"{index}"
        keys = (title, "".join(rng.choice(HAN) for _ in range(rng.randint(2, 4))))
        body = "".join(rng.choice(HAN) for _ in range(rng.randint(40, 160)))
        entries.append(
            LoreEntry(
                uid=index,
                keys=keys,
                content=f"{title}：{body}",
                comment=title,
                constant=index % 50 == 0,
                order=rng.randint(1, 1000),
                book="基准书",
            )
        )
    return entries


def as_st_book(entries: list[LoreEntry]) -> dict[str, object]:
    """The same entries as a SillyTavern standalone book, for the cold-load column."""
    return {
        "entries": {
            str(e.uid): {
                "uid": e.uid,
                "key": list(e.keys),
                "comment": e.comment,
                "content": e.content,
                "constant": e.constant,
                "order": e.order,
            }
            for e in entries
        }
    }


def disk_beat(raw: dict[str, object], words: str, history: list[Turn], runs: int) -> list[float]:
    """Wall times of load-materials + assemble on a temporary data folder with *raw* mounted."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.modes.stage.request import assemble_for
    from peargarden.workspace import atomic
    from peargarden.workspace.home import Home
    from peargarden.workspace.seed import seed_home

    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        seed_home(home)
        atomic.write_json(home.lorebooks_dir / "基准书.json", raw)
        atomic.write_json(home.card_dir("青梧") / "卡.json", {"lorebooks": ["栖水镇", "基准书"]})
        load_stage_materials(home, "青梧")  # the first beat builds the corpus

        def beat() -> object:
            materials = load_stage_materials(home, "青梧")
            return assemble_for(materials, history, words, thinking="medium", tool_names=["lorebook_search"])

        wall, _ = timed(beat, runs)
        json.dumps(beat().messages, ensure_ascii=False)  # type: ignore[attr-defined]
    return wall


def chat(rng: random.Random, entries: list[LoreEntry]) -> list[Turn]:
    turns: list[Turn] = [Turn("assistant", "雨下到第三天，听雨轩的灯还亮着。")]
    for index in range(39):
        mention = rng.choice(entries).title
        text = "".join(rng.choice(HAN) for _ in range(rng.randint(60, 400))) + mention
        turns.append(Turn("user" if index % 2 == 0 else "assistant", text))
    return turns


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - w0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    rng = random.Random(20261130)
    files = PromptFiles(
        system="你在梨园（Pear Garden）中工作。",
        bundled_system="",
        working_directory="cards/青梧",
        global_append="# 角色扮演\n" + "扮演定义。" * 300 + "\n\n<!--\n## 关掉的\n不发送\n-->\n## 岔口\n该问就问。\n",
        card_append="## 身份\n{{char}}说话古雅。\n",
    )
    card = StageCard(
        name="青梧",
        description="{{char}}是听雨轩的掌柜。" * 20,
        personality="沉静。",
        scenario="雨夜，{{user}}推门而入。",
        first_mes="雨下到第三天。",
    )
    columns = ["entries", "cold load (ms)", "corpus build (ms)", "assemble p50 (ms)", "assemble p90 (ms)"]
    columns += ["assemble p50 CPU (ms)", "search p50 (ms)", "beat from disk p50 (ms)", "hits"]
    print("| " + " | ".join(columns) + " |")
    print("|---:" * len(columns) + "|")
    for size in (int(s) for s in args.sizes.split(",")):
        entries = make_entries(size, rng)
        history = chat(rng, entries)
        build_wall, _ = timed(lambda entries=entries: LoreCorpus(entries), max(3, args.runs // 10))
        raw = as_st_book(entries)
        cold_wall, _ = timed(
            lambda raw=raw: LoreCorpus(merge_books([entries_from_book(raw, "基准书")])),
            max(3, args.runs // 10),
        )
        corpus = LoreCorpus(entries)
        words = f"{entries[size // 2].title}和{entries[size // 3].title}，还记得吗？"

        def beat(corpus: LoreCorpus = corpus, history: list[Turn] = history, words: str = words) -> object:
            return assemble_beat(
                files, card, StageSettings(), corpus, history, words, thinking="medium", tool_names=["lorebook_search"]
            )

        request = assemble_beat(files, card, StageSettings(), corpus, history, words, thinking="medium")
        wall, cpu = timed(beat, args.runs)
        search_wall, _ = timed(lambda entries=entries, words=words: search_entries(entries, words), args.runs)
        row = [f"{size:,}", statistics.median(cold_wall), statistics.median(build_wall), p(wall, 0.5)]
        disk = disk_beat(raw, words, history, args.runs)
        row += [p(wall, 0.9), p(cpu, 0.5), p(search_wall, 0.5), p(disk, 0.5)]
        cells = [c if isinstance(c, str) else f"{c:.2f}" for c in row] + [str(len(request.hits))]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
