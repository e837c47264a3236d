"""Quality of the embedded models on real Chinese turns with 青梧 (the README's first chat).

Each installed local model plays the same 12 turns, in order, as one chat through the real app
(``PearApp`` → stage mode → the small-model profile → ``EmbeddedProvider`` with its echo guard), on
a fresh temporary data folder with the bundled card and 栖水镇.  The turns: a greeting, lore that is
in 栖水镇 (怀瑾, 镇北渡口, the umbrella), a long user turn, an out-of-character question, small talk.

Per model:

* CJK share: CJK characters / all non-space characters of the replies;
* longest repeat: the longest run of characters that occurs twice inside one reply (loops show here);
* ended by stop: replies that ended by the model's end token or the stop on the user's name, not
  by the token limit;
* echoes: replies with a clause that hands the user's line back, or made only of the user's words
  (``providers._echo.echoes`` over the whole reply, after the guard);
* gen tok/s: completion tokens / seconds from the first to the last piece, over all turns;
* TTFT beat 1 / beat 2: seconds to the first piece of the first and second reply (beat 1 includes
  loading the model and the whole prompt; beat 2 reuses the KV prefix);
* RSS: what the process's resident memory grew by while the model was loaded and ran, plus the
  resident memory of the model's worker process (where the model lives since issue 28).

And the named checks of issue 28 (the failures a person would not keep):

* answers turn 1: the reply to 「你好，掌柜。还有空房吗？」 says whether there is a room (有 / 没有 / 满 /
  空着 … a room) or names a price — not just any sentence with 房 in it;
* longest copy: the longest run of characters (spaces ignored) a reply shares with a lorebook body or
  a field of the card (greeting and example dialogue included); 20 or more counts as a copy;
* pronoun slips: sentences that call a man of the lore (怀瑾, 周伯) 她 — naming him, or right after a
  sentence that does (and naming no woman themselves);
* model claims: replies that say they are a model, an AI, an assistant or a program (我是…模型), or
  name a company or a model (阿里, 通义, Qwen, OpenAI …).

The replies themselves go to a Markdown report (``--report``, default ``embedded_quality_report.md``).

``--prompt-size`` prints instead the size of the small-model profile's system prompt on each turn
(characters, our cl100k counter, each model's own tokenizer: its vocabulary only is loaded).

    .venv/bin/python bench/bench_embedded_quality.py                       # every fetched catalog model
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --model path/to/other.gguf
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --prompt-size
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --upto 6   # up to the long turn

Needs the ``[local]`` extra and fetched models (``bash scripts/chat.sh`` or ``pear models --fetch``).
"""

from __future__ import annotations

import argparse
import gc
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from peargarden.agent.events import DoneEvent, ErrorEvent, TextDeltaEvent
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection
from peargarden.providers import embedded
from peargarden.providers._echo import echoes
from peargarden.providers._model_claims import claims_to_be_a_model
from peargarden.providers.model_catalog import CATALOG
from peargarden.providers.model_fetch import installed_path
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

TURNS = [
    "你好，掌柜。还有空房吗？",
    "我叫陆行舟，从县城来，想在镇上住几天。这雨什么时候能停？",
    "掌柜的，柜台后面那把旧油纸伞，是有什么来历吗？",
    "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？",
    "镇北渡口每天有几班船？我想打听一下去京城的路。",
    (
        "实不相瞒，我这次来栖水镇，是受人之托。县城沈家的老夫人病了，临终前一直念叨着小儿子，"
        "说他十年前离家，最后一封信就是从栖水镇寄出的。老夫人托我来问问，镇上可有人知道他的下落，"
        "哪怕只是一句话、一件旧物也好。我一路打听过来，船家说听雨轩的掌柜记得每一位住过的客人，"
        "所以冒雨赶了夜路。掌柜若是知道什么，还请告诉我，我好回去给老夫人一个交代。"
    ),
    "（出戏）你是什么模型？能用英文回答吗？",
    "掌柜，有热水吗？我想洗把脸。",
    "你一个人撑着这间客栈，不累吗？",
    "镇上有什么好吃的？明天想出去走走。",
    "听说镇上送人只送到柳树下，这是什么讲究？",
    "夜深了，我先上楼歇息。掌柜也早些睡吧。",
]


# The people of 栖水镇 and their pronoun (its lorebook: 沈怀瑾 is 县城沈家的小儿子, 周伯 a boatman).
LORE_MEN = ("怀瑾", "周伯")
LORE_WOMEN = ("青梧", "掌柜", "老夫人")
COPY_LIMIT = 20
_ROOM_ANSWER = re.compile(
    r"(还有|有|没有|没了|满了|住满|空着|剩)[^。！？\n]{0,8}(房|间|屋|床|铺)"  # 有的，楼上还空着一间
    r"|(房|间)[^。！？\n]{0,6}(还有|有的|空着|满了|没了|住满)"  # 东头那间空着
    r"|客满|住满了|已经满了"
    r"|[0-9一二三四五六七八九十百几]+\s*(文|钱|两银|吊)"  # a price
)

def answers_room(reply: str) -> bool:
    """Turn 1: a yes or no about a room, or a price (「那间客房的东头那间临河。」 answers nothing)."""
    return bool(_ROOM_ANSWER.search(reply))


def longest_copy(reply: str, sources: list[str]) -> int:
    """The longest run of *reply* (spaces ignored) that appears in one of *sources*."""
    text = "".join(reply.split())
    haystack = "\n".join("".join(source.split()) for source in sources)
    best = 0
    for start in range(len(text)):
        length = best + 1
        while start + length <= len(text) and text[start : start + length] in haystack:
            best = length
            length += 1
    return best


def pronoun_slips(reply: str) -> int:
    """Sentences that call a man of the lore 她: 她 and no 他 in a sentence that names him, or that
    follows one naming him and names no woman itself (「…怀瑾公子…走了。她还欠着半钱房钱。」)."""
    slips = 0
    about_a_man = False
    for sentence in re.split(r"(?<=[。！？!?…\n])", reply):
        names_man = any(name in sentence for name in LORE_MEN)
        names_woman = any(name in sentence for name in LORE_WOMEN)
        if "她" in sentence and "他" not in sentence and (names_man or (about_a_man and not names_woman)):
            slips += 1
        if names_man or names_woman:
            about_a_man = names_man and not names_woman
    return slips


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")


def longest_repeat(text: str) -> int:
    """Length of the longest substring that occurs at least twice (non-overlapping) in *text*."""
    best = 0
    n = len(text)
    # Binary search on the length: a repeat of length k implies one of every shorter length.
    low, high = 1, n // 2
    while low <= high:
        k = (low + high) // 2
        seen: dict[str, int] = {}
        found = False
        for i in range(n - k + 1):
            piece = text[i : i + k]
            first = seen.setdefault(piece, i)
            if i - first >= k:
                found = True
                break
        if found:
            best, low = k, k + 1
        else:
            high = k - 1
    return best


@dataclass
class Run:
    model: str
    replies: list[str] = field(default_factory=list)
    stops: list[str] = field(default_factory=list)
    first_piece: list[float] = field(default_factory=list)
    gen_seconds: float = 0.0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)
    rss_mb: float = 0.0
    sources: list[str] = field(default_factory=list)  # the card's fields and the lore bodies

    def row(self) -> dict[str, str]:
        text = "".join(self.replies)
        visible = [ch for ch in text if not ch.isspace()]
        share = cjk_count(text) / len(visible) if visible else 0.0
        repeat = max((longest_repeat(r) for r in self.replies), default=0)
        stopped = sum(1 for s in self.stops if s == "stop")
        echoed = sum(1 for turn, reply in zip(TURNS, self.replies, strict=False) if echoes(turn, reply))
        rate = self.completion_tokens / self.gen_seconds if self.gen_seconds else 0.0
        ttft = [f"{t:.1f}" for t in self.first_piece[:2]] + ["–"] * (2 - len(self.first_piece[:2]))
        copies = [longest_copy(reply, self.sources) for reply in self.replies]
        return {
            "model": self.model,
            "CJK share": f"{share:.0%}",
            "longest repeat (chars)": str(repeat),
            "ended by stop": f"{stopped}/{len(self.stops)}",
            "echoes": f"{echoed}/{len(self.replies)}",
            "answers turn 1": ("yes" if answers_room(self.replies[0]) else "no") if self.replies else "–",
            f"copies ≥ {COPY_LIMIT} (longest)": f"{sum(c >= COPY_LIMIT for c in copies)} ({max(copies, default=0)})",
            "pronoun slips": str(sum(pronoun_slips(reply) for reply in self.replies)),
            "model claims": str(sum(claims_to_be_a_model(reply) for reply in self.replies)),
            "gen tok/s": f"{rate:.1f}",
            "TTFT beat 1 (s)": ttft[0],
            "TTFT beat 2 (s)": ttft[1],
            "RSS (GB)": f"{self.rss_mb / 1024:.2f}",
        }


def rss_mb(pid: int | str = "self") -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def workers_rss_mb() -> float:
    """The resident memory of the embedded models' worker processes of this process."""
    pids = [p._worker.pid for p in embedded._shared.values() if p._worker is not None and p._worker.pid]
    return sum(rss_mb(pid) for pid in pids)


def run_model(label: str, path: Path, turns: int = len(TURNS)) -> Run:
    run = Run(label)
    base = rss_mb()
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        seed_home(home)
        run.sources = copy_sources(home)
        app = PearApp(home)
        options = ChatOptions(mode="stage", connection=Connection(local_model=str(path)))
        session = app.new_chat("青梧", options)
        for turn in TURNS[:turns]:
            start = time.perf_counter()
            first = last = None
            pieces: list[str] = []
            stop = "?"
            for event in session.send(turn):
                now = time.perf_counter()
                if isinstance(event, TextDeltaEvent) and event.text:
                    first = first if first is not None else now
                    last = now
                    pieces.append(event.text)
                elif isinstance(event, DoneEvent):
                    stop = event.stop_reason
                    run.completion_tokens += int(event.usage.get("completion_tokens", 0))
                elif isinstance(event, ErrorEvent):
                    run.errors.append(event.message)
            reply = "".join(pieces)
            run.replies.append(reply)
            run.stops.append(stop)
            if first is not None and last is not None:
                run.first_piece.append(first - start)
                run.gen_seconds += last - first
            print(f"  [{label}] {len(run.replies)}/{turns} {stop} {reply[:40]!r}", file=sys.stderr)
        run.rss_mb = rss_mb() - base + workers_rss_mb()
    for provider in embedded._shared.values():  # unload before the next model (the app keeps one per GGUF)
        provider.close()
    embedded._shared.clear()
    return run


def copy_sources(home: Home) -> list[str]:
    """What a reply must not paste: the card's fields and the bodies of its lore."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.workspace.cards import open_card

    materials = load_stage_materials(home, open_card(home, "青梧"))
    card = materials.card
    fields = [card.description, card.personality, card.scenario, card.first_mes, card.mes_example]
    return [text for text in fields if text] + [entry.content for entry in materials.corpus.entries]


def models_to_run(names: list[str]) -> list[tuple[str, Path]]:
    if names:
        out = []
        for name in names:
            model = CATALOG.get(name)
            path = installed_path(model) if model else Path(name)
            if path is None:
                raise SystemExit(f"{name}: not fetched (pear models --fetch {name})")
            out.append((name, path))
        return out
    return [(key, path) for key, model in CATALOG.items() if (path := installed_path(model)) is not None]


def write_report(path: Path, runs: list[Run]) -> None:
    lines = ["# Embedded models on 青梧: the replies", "", "Turns in order, one chat per model.", ""]
    for run in runs:
        lines += [f"## {run.model}", ""]
        for index, (turn, reply, stop) in enumerate(zip(TURNS, run.replies, run.stops, strict=False), 1):
            lines += [f"**{index}. 旅人：** {turn}", "", f"**青梧（{stop}）：** {reply.strip() or '（空）'}", ""]
        if run.errors:
            lines += ["Errors: " + "; ".join(run.errors), ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def prompt_sizes(models: list[tuple[str, Path]]) -> None:
    """The compact system prompt for each turn (after the greeting): characters and tokens."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.modes.stage.request import compact_for, greeting_turns
    from peargarden.text.tokens import counter_for_model
    from peargarden.workspace.cards import open_card

    llama = embedded.llama_class()
    vocabs = [(label, llama(model_path=str(path), vocab_only=True, verbose=False)) for label, path in models]
    count = counter_for_model("")
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        seed_home(home)
        materials = load_stage_materials(home, open_card(home, "青梧"))
        header = ["turn", "lore in the prompt", "chars", "cl100k"] + [label for label, _ in vocabs]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for index, turn in enumerate(TURNS, 1):
            staged = compact_for(materials, greeting_turns(materials), turn)
            system = staged.system
            entries = [*materials.corpus.constants, *staged.hits]
            lore = "、".join(dict.fromkeys(e.title for e in entries if f"【{e.title}】" in system))
            sizes = [len(vocab.tokenize(system.encode("utf-8"), add_bos=False, special=True)) for _, vocab in vocabs]
            print(f"| {index} | {lore} | {len(system)} | {count(system)} | " + " | ".join(map(str, sizes)) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", default=[], help="catalog name or GGUF path (repeatable)")
    parser.add_argument("--report", type=Path, default=Path("embedded_quality_report.md"))
    parser.add_argument("--prompt-size", action="store_true", help="print the compact system prompt's size per turn")
    parser.add_argument(
        "--upto", type=int, default=len(TURNS), help="play only the first N turns (6: up to the long turn)"
    )
    args = parser.parse_args()
    models = models_to_run(args.model)
    if not models:
        raise SystemExit("no embedded model is fetched: run `pear models --fetch qwen-0.5b` first")
    if args.prompt_size:
        prompt_sizes(models)
        return
    runs = []
    for label, path in models:
        started = time.perf_counter()
        runs.append(run_model(label, path, max(1, min(args.upto, len(TURNS)))))
        gc.collect()
        print(f"{label}: {time.perf_counter() - started:.0f}s", file=sys.stderr)
    rows = [run.row() for run in runs]
    header = list(rows[0])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row[h] for h in header) + " |")
    write_report(args.report, runs)
    print(f"replies: {args.report}", file=sys.stderr)


if __name__ == "__main__":
    main()
