"""Differential check of the engine against SillyTavern 1.12.6's own ``world-info.js`` (run by hand).

Not a pytest module: it needs node and a SillyTavern checkout, which CI does not have.  It generates
random books (keys, regex keys, secondary logic, groups, probabilities, recursion flags, timed
effects, positions), settings and chats, runs our ``check_world_info`` over 1-3 consecutive
generations, runs SillyTavern's real ``checkWorldInfo`` on the same inputs under node (browser
modules replaced by the stubs in ``stubs_prefix.mjs``; random numbers, token counts and macros made
identical on both sides) and compares activated entries, every output list, the timed-effects
metadata and the number of random rolls.

    git -C SillyTavern show ba6f7b7a98cf:public/scripts/world-info.js > /tmp/world-info.js
    .venv/bin/python tests/worldinfo/st_differential/run.py /tmp/world-info.js --seed 1 --cases 1000

SillyTavern's file is read where it lies and assembled in a temporary folder; nothing of it is
stored in this repository.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from peargarden.worldinfo import (
    CharacterContext,
    ScanMessage,
    Strategy,
    WorldInfoSettings,
    book_from_st,
    character_book_to_world,
    check_world_info,
    select_book_names,
    sort_entries,
    wrap_authors_note,
)

HERE = Path(__file__).parent
VOCAB = ["怀瑾", "听雨轩", "西湖", "茶", "tea", "Tea pot", "雨", "/怀.?/", "/^林月/m", "{{char}}", "  ", "", "林月"]


def make_entry(rng: random.Random, uid: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"uid": uid}

    def put(name: str, value: Any, p: float = 0.8) -> None:
        if rng.random() < p:  # fields are left out now and then: ST reads them as undefined
            entry[name] = value

    put("key", [rng.choice(VOCAB) for _ in range(rng.randint(0, 3))], 0.95)
    put("keysecondary", [rng.choice(VOCAB) for _ in range(rng.randint(0, 2))])
    put("selective", rng.choice([True, False]))
    put("selectiveLogic", rng.randint(0, 3))
    put("constant", rng.random() < 0.15)
    put("disable", rng.random() < 0.05)
    put("order", rng.choice([0, 50, 100, 100, 150, 200, 300]), 0.97)
    put("position", rng.randint(0, 6))
    put("depth", rng.randint(0, 4))
    put("role", rng.randint(0, 2))
    put("probability", rng.choice([100, 100, 50, 0, 30]))
    put("useProbability", rng.choice([True, False]))
    put("group", rng.choice(["", "", "甲", "甲,乙", "乙"]))
    put("groupOverride", rng.random() < 0.2)
    put("groupWeight", rng.choice([100, 10, 50]))
    put("scanDepth", rng.choice([None, None, 0, 1, 3]))
    put("caseSensitive", rng.choice([None, True, False]))
    put("matchWholeWords", rng.choice([None, True, False]))
    put("useGroupScoring", rng.choice([None, True, False]))
    put("excludeRecursion", rng.random() < 0.2)
    put("preventRecursion", rng.random() < 0.2)
    put("delayUntilRecursion", rng.choice([0, 0, 0, 1, 2, True]))
    put("sticky", rng.choice([None, None, 1, 2, 3]))
    put("cooldown", rng.choice([None, None, 1, 2]))
    put("delay", rng.choice([None, None, 3, 6]))
    content = "".join(rng.choice([*VOCAB[:7], "说话", "的", " "]) for _ in range(rng.randint(0, 4))) + f"[{uid}]"
    if rng.random() < 0.1:
        content = rng.choice(["@@activate\n", "@@dont_activate\n"]) + content
    put("content", content, 0.95)
    if rng.random() < 0.05:
        entry["characterFilter"] = {"isExclude": rng.random() < 0.5, "names": ["林月"], "tags": []}
    return entry


def make_case(rng: random.Random) -> dict[str, Any]:
    books = {}
    for name in rng.sample(["甲书", "乙书", "丙书"], rng.randint(1, 3)):
        uids = rng.sample(range(15), rng.randint(1, 7))
        books[name] = {"entries": {str(u): make_entry(rng, u) for u in uids}}
    names = list(books)

    def message() -> list[str]:
        words = [*VOCAB[:7], "你好", "hello", "tea-pot"]
        return [rng.choice(["林月", "User"]), " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))]

    messages = [message() for _ in range(rng.randint(1, 8))]
    steps = []
    for k in range(rng.randint(1, 3)):
        if k:
            messages = [*messages, message(), message()]
        injects = [rng.choice(VOCAB[:7])] if rng.random() < 0.2 else []
        steps.append({"messages": messages, "injects": injects, "dry": rng.random() < 0.15})
    return {
        "books": books,
        "globalSelect": [n for n in names if rng.random() < 0.6],
        "characterWorld": rng.choice([*names, None]),
        "chatWorld": rng.choice([*names, None, None]),
        "settings": {
            "depth": rng.randint(1, 4),
            "budget_percent": rng.choice([25, 5, 1, 100]),
            "budget_cap": rng.choice([0, 0, 30, 200]),
            "include_names": rng.random() < 0.8,
            "recursive": rng.random() < 0.6,
            "case_sensitive": rng.random() < 0.2,
            "match_whole_words": rng.random() < 0.5,
            "min_activations": rng.choice([0, 0, 2, 4]),
            "min_activations_depth_max": rng.choice([0, 2, 5]),
            "max_recursion_steps": rng.choice([0, 0, 2]),
            "use_group_scoring": rng.random() < 0.3,
            "character_strategy": rng.randint(0, 2),
        },
        "steps": steps,
        "maxContext": rng.choice([100, 400, 1000, 3795, 8000]),
        "randoms": [rng.random() for _ in range(7)],
        "timed": {"sticky": {}, "cooldown": {}},
    }


def make_embedded_book(rng: random.Random) -> dict[str, Any]:
    entries = []
    for index in range(rng.randint(1, 5)):
        item: dict[str, Any] = {"keys": [rng.choice(VOCAB)], "content": f"条目{index}", "enabled": rng.random() < 0.8}
        for name, values in (
            ("id", [index + 10, None, "x"]),
            ("secondary_keys", [[], ["茶"]]),
            ("comment", ["", "怀瑾"]),
            ("constant", [True, False]),
            ("selective", [True, False]),
            ("insertion_order", [10, 100]),
            ("position", ["before_char", "after_char", "x"]),
        ):
            if rng.random() < 0.7:
                item[name] = rng.choice(values)
        if rng.random() < 0.5:
            item["extensions"] = {
                k: v
                for k, v in {
                    "position": rng.randint(0, 6),
                    "depth": rng.randint(0, 5),
                    "role": rng.randint(0, 2),
                    "group": "甲",
                    "probability": 50,
                    "sticky": 2,
                    "scan_depth": 3,
                    "case_sensitive": True,
                }.items()
                if rng.random() < 0.5
            }
        entries.append(item)
    return {"name": rng.choice(["", "沈墨的书"]), "entries": entries}


def run_ours(case: dict[str, Any]) -> list[dict[str, Any]]:
    books = case["books"]
    settings = {**case["settings"], "character_strategy": Strategy(case["settings"]["character_strategy"])}
    g, c, chat = select_book_names(
        global_select=case["globalSelect"], character_world=case["characterWorld"], chat_world=case["chatWorld"]
    )
    entries = sort_entries(
        global_books=[book_from_st(n, books[n]) for n in g],
        character_books=[book_from_st(n, books[n]) for n in c],
        chat_book=book_from_st(chat, books[chat]) if chat else None,
        strategy=settings["character_strategy"],
    )
    timed = case["timed"]
    results = []
    for step in case["steps"]:
        calls = [0]

        def roll(calls: list[int] = calls) -> float:
            value: float = case["randoms"][calls[0] % len(case["randoms"])]
            calls[0] += 1
            return value

        result = check_world_info(
            entries,
            [ScanMessage(n, t) for n, t in step["messages"]],
            WorldInfoSettings(**settings),
            max_context=case["maxContext"],
            count_tokens=lambda t: len(t) + 6,  # the same counter is installed on the node side
            random=roll,
            macro=lambda t: t.replace("{{char}}", "林月"),
            inject_scan=step["injects"],
            timed_world_info=timed,
            character=CharacterContext("林月.png"),
            dry_run=step["dry"],
        )
        timed = result.timed_world_info
        results.append(
            {
                "before": result.wi_before,
                "after": result.wi_after,
                "em": [[x.position, x.content] for x in result.examples],
                "depth": [[d.depth, d.role, list(d.entries)] for d in result.depth],
                "activated": [a.entry.key for a in result.activated],
                "timed": result.timed_world_info,
                "rolls": calls[0],
                "an": wrap_authors_note("[作者注]", result.an_top, result.an_bottom),
            }
        )
    return results


def _first_difference(ours: Any, theirs: Any, path: str = "") -> str:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if list(ours) != list(theirs):
            return f"{path}: keys {list(ours)} vs {list(theirs)}"
        for key in ours:
            if ours[key] != theirs[key] or (isinstance(ours[key], dict) and list(ours[key]) != list(theirs[key])):
                return _first_difference(ours[key], theirs[key], f"{path}.{key}")
        return f"{path}: same"
    return f"{path}: {ours!r} vs {theirs!r}"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("world_info_js", type=Path, help="SillyTavern 1.12.6 public/scripts/world-info.js")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=500)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    cases = [make_case(rng) for _ in range(args.cases)]
    ours: list[Any] = [run_ours(c) for c in cases]
    books = [{"book": make_embedded_book(rng)} for _ in range(args.cases // 4)]
    ours += [[character_book_to_world(b["book"], "沈墨", editor_resave=False)[1]] for b in books]
    cases += books
    source = args.world_info_js.read_text(encoding="utf-8").splitlines(keepends=True)
    body = "".join(line for line in source if not line.startswith("import "))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        module = (HERE / "stubs_prefix.mjs").read_text(encoding="utf-8") + body
        module += (HERE / "harness_suffix.mjs").read_text(encoding="utf-8")
        (folder / "wi.mjs").write_text(module, encoding="utf-8")
        (folder / "driver.mjs").write_text((HERE / "driver.mjs").read_text(encoding="utf-8"), encoding="utf-8")
        (folder / "cases.json").write_text(json.dumps(cases, ensure_ascii=False), encoding="utf-8")
        subprocess.run(["node", "driver.mjs", "cases.json", "st.json"], cwd=folder, check=True)
        theirs = json.loads((folder / "st.json").read_text(encoding="utf-8"))

    bad = steps = 0
    for index, (mine, st) in enumerate(zip(ours, theirs, strict=True)):
        if isinstance(st, dict) and "converted" in st:
            steps += 1
            converted = st["converted"]
            same_order = [list(e) for e in converted["entries"].values()] == [
                list(e) for e in mine[0]["entries"].values()
            ]
            if converted != mine[0] or not same_order or list(converted["entries"]) != list(mine[0]["entries"]):
                bad += 1
                if bad <= 10:
                    print(f"book {index}: {_first_difference(mine[0], converted)}")
            continue
        if isinstance(st, dict):
            print(f"case {index}: SillyTavern raised {st.get('error', '')[:200]}")
            bad += 1
            continue
        for step, (a, b) in enumerate(zip(mine, st, strict=True)):
            steps += 1
            differing = [k for k in a if a[k] != b[k]]
            if differing:
                bad += 1
                if bad <= 10:
                    key = differing[0]
                    print(f"case {index} step {step}: {key}\n  ours {a[key]}\n  ST   {b[key]}")
    print(f"{bad} of {steps} generations differ (seed {args.seed}, {args.cases} cases)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
