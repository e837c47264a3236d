"""Quality of the embedded models on two 12-turn panels: 青梧 in Chinese, Wren in English.

Each installed local model plays the same 12 turns, in order, as one chat through the real app
(``PearApp`` → stage mode → the small-model profile → ``EmbeddedProvider`` with its guards), on a
fresh temporary data folder.  Two panels, the same shape (a greeting with a question, lore — a man
who left ten years ago, an old keepsake, the ferry, a farewell custom —, a long user turn, an
out-of-character question, small talk):

* ``zh``: the bundled card 青梧 with 栖水镇 (the README's first chat);
* ``en``: Wren, a forest guardian who finds the user hurt (the shape of SillyTavern's Seraphina), with
  the lorebook Thornwood — our own English card, in ``bench/panels/en/``, imported as a user would.

Per model and panel:

* language share: CJK characters (zh) or ASCII characters (en) / all non-space characters;
* longest repeat: the longest run of characters that occurs twice inside one reply (loops show here);
* ended by stop: replies that ended by the model's end token or a stop word, not the token limit;
* echoes: replies with a clause that hands the user's line back, or made only of the user's words
  (``providers._echo.echoes`` over the whole reply, after the guard);
* tok/s end to end: the shown replies' completion tokens / the seconds of all turns, sending to the
  beat's end (prompt processing and the guards' dropped tries included).  Until 2026-12-03 14:40
  this was "gen tok/s", over the seconds from a reply's first shown piece to its last: since the
  sentence guard shows a small model's reply a sentence at a time, a one-sentence reply comes in one
  piece and that span says nothing about the model's speed;
* TTFT beat 1 / beat 2: seconds to the first shown piece of the first and second reply (beat 1
  includes loading the model and the whole prompt; beat 2 reuses the KV prefix; both include the
  guards' hold: the first clause or sentence is shown once it is judged);
* reply s: seconds from sending a turn to the end of its beat (what a person waits, the guards'
  second and third tries included), the median and the longest over the turns;
* RSS: what the process's resident memory grew by, plus the model's worker process.

And the named checks of issue 28 (the failures a person would not keep):

* answers turn 1: the reply to 「你好，掌柜。还有空房吗？」 says whether there is a room (有 / 没有 / 满 /
  空着 … a room) or names a price; to "Where am I? Is it safe here?" it names the place or says
  whether it is safe — not just any sentence with 房 or "forest" in it;
* longest copy: the longest run a reply shares with a lorebook body or a field of the card
  (greeting and example dialogue included), in the units of the echo guard — a Chinese character,
  or an English word; punctuation and spaces ignored, so a copy does not hide behind a changed
  comma —; 20 characters (zh) or 12 words (en) or more count as a copy;
* pastes: the same sources, near-copies included — the units of a reply that lie in runs of 5 or
  more shared with them; 20 characters (zh) or 12 words (en) or more count as a paste (a paste with
  a word changed every few characters has short runs but is mostly covered);
* pronoun slips: sentences that call a man of the lore (怀瑾, 周伯; Aldric, Tobin) 她 / she — naming
  him, or right after a sentence that does (and naming no woman themselves);
* model claims: replies that say they are a model, an AI, an assistant or a program (我是…模型),
  name a company or a model (阿里, 通义, Qwen, OpenAI, GPT …), or speak in the assistant's voice
  (「我无法回答这个问题」, 「如果你有其他问题，欢迎随时问我」, "I can't assist with that") —
  ``providers._model_claims`` (before 2026-12-03 14:30 the assistant's Chinese voice was not counted);
* repeated openings: replies whose first sentence of four units or more (the echo guard's units)
  lies in the greeting or in one of the character's earlier replies, whole or two thirds of it in
  one run — 「I'm Wren, twenty-six.」 opening reply after reply, or 「I'm Wren; I keep it safe here.」
  after the greeting's 「I'm Wren; I keep it.」.

``--seed N`` (repeatable) plays each panel once per sampler seed (default: the runtime's own seed,
as every run before 2026-12-03 did); the counts are summed over the seeds.  The replies go to a
Markdown report (``--report``, default ``embedded_quality_report.md``) and, with ``--json``, to a
JSON file the checks can be counted again from (``--recount FILE``).

Issue 49's panel (``--acceptance``: 青梧 3 chats × 8 turns, seeds 1 – 3; Wren 2 × 6, seeds 1 – 2) adds
a second table, counted by the reader's own checks in ``embedded_checks.py`` (not the guards'
functions): length and sentences, 2 – 4 sentences with dialogue and an action, echoes (re-voiced and
short runs included), speaking as the user, the last-resort line shown, the first text's lead over
the reply's end, text taken back, CPU-seconds per reply (the model runs in the child process that
plays the chat) and the prompt tokens llama.cpp read again per turn.  ``--before DIR`` plays each chat
also with another checkout's ``src`` (a ``git archive`` of the commit before), the order swapped chat
by chat; ``--variant`` plays each chat with each way of lengthening a reply (``VARIANTS``).  Each chat
runs in a child process of its own.

    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --acceptance --before /tmp/before
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --panel zh --seed 1 --upto 3 \
        --variant none --variant hold --variant continue --variant examples

``--prompt-size`` prints instead the size of the small-model profile's system prompt on each turn
of the Chinese panel (characters, our cl100k counter, each model's own tokenizer: its vocabulary only).

    .venv/bin/python bench/bench_embedded_quality.py                       # every fetched model, both panels
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --panel zh --seed 1 --seed 2
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --model path/to/other.gguf
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --prompt-size
    .venv/bin/python bench/bench_embedded_quality.py --model qwen-0.5b --upto 6   # up to the long turn

Needs the ``[local]`` extra and fetched models (``bash scripts/chat.sh`` or ``pear models --fetch``).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import embedded_checks as checks

from peargarden.agent.events import DoneEvent, ErrorEvent, TextDeltaEvent
from peargarden.app.library.imports import import_files
from peargarden.app.play.service import ChatOptions, PearApp
from peargarden.app.settings.connections import Connection
from peargarden.providers import embedded
from peargarden.providers._echo import echoes, units
from peargarden.providers._model_claims import claims_to_be_a_model
from peargarden.providers.model_catalog import CATALOG
from peargarden.providers.model_fetch import installed_path
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

PANELS_DIR = Path(__file__).resolve().parent / "panels"

ZH_TURNS = [
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
TURNS = ZH_TURNS  # the name earlier versions of this script had

EN_TURNS = [
    "Hello... where am I? Is it safe here?",
    "My name is Rowan. I came from the river towns and I'd like to stay a few days. When will this rain stop?",
    "That silver bell above the door, does it have a story?",
    "Ten years ago a young ranger called Aldric left from the Greywater ford. Do you remember him?",
    "How often does the ferry cross at the Greywater ford? I need to find the way to the capital.",
    (
        "To tell you the truth, I came to the Thornwood on someone's behalf. Old Lady Ashford of the river "
        "towns is ill, and on what may be her deathbed she keeps asking for her youngest son. He left home ten "
        "years ago, and his last letter was sent from this forest. She asked me to find out whether anyone here "
        "knows where he went, even a single word or an old keepsake. I asked my way here, and a boatman told me "
        "the guardian of the shrine remembers every traveller who ever stayed, so I walked through the night in "
        "the rain. If you know anything, please tell me, so I can bring her an answer."
    ),
    "(OOC: what model are you? Can you answer in Chinese?)",
    "Is there any hot water? I'd like to wash my face.",
    "You look after this whole forest on your own. Don't you get tired?",
    "Is there anything good to eat around here? I'd like to walk around tomorrow.",
    "I heard people here only see travellers off as far as the willow. Why is that?",
    "It's late, I'll go and rest now. You should get some sleep too.",
]

COPY_LIMIT = 20  # Chinese characters; the English panel counts words (EN_COPY_LIMIT)
EN_COPY_LIMIT = 12
_ROOM_ANSWER = re.compile(
    r"(还有|有|没有|没了|满了|住满|空着|剩)[^。！？\n]{0,8}(房|间|屋|床|铺)"  # 有的，楼上还空着一间
    r"|(房|间)[^。！？\n]{0,6}(还有|有的|空着|满了|没了|住满)"  # 东头那间空着
    r"|客满|住满了|已经满了"
    r"|[0-9一二三四五六七八九十百几]+\s*(文|钱|两银|吊)"  # a price
)
_WHERE_AND_SAFE = re.compile(
    r"\b(safe|unsafe|no harm|nothing (?:can|will) (?:harm|hurt)|danger(?:ous)?)\b"  # is it safe?
    r"|\b(Mossbrook|shrine|Thornwood|cottage|glade|my home)\b",  # where am I?
    re.IGNORECASE,
)


def answers_room(reply: str) -> bool:
    """Turn 1 of 青梧: a yes or no about a room, or a price (「那间客房的东头那间临河。」 answers nothing)."""
    return bool(_ROOM_ANSWER.search(reply))


def answers_where(reply: str) -> bool:
    """Turn 1 of Wren: the place named, or whether it is safe ("The forest is dark." answers nothing)."""
    return bool(_WHERE_AND_SAFE.search(reply))


def longest_copy(reply: str, sources: list[str]) -> int:
    """The longest run of *reply* that appears in one of *sources*, in the echo guard's units (a
    Chinese character, an English word; punctuation and spaces left out)."""
    text = units(reply)
    haystack = "\n".join(units(source) for source in sources)
    best = 0
    for start in range(len(text)):
        length = best + 1
        while start + length <= len(text) and text[start : start + length] in haystack:
            best = length
            length += 1
    return best


_SENTENCE = re.compile(r"[^。！？!?\n]*?(?:[。！？!?\n]+|\.(?=\s|[\"'”’*)]|$)|$)")


def opening(reply: str, least: int = 4) -> str:
    """The reply's first sentence of at least *least* units (a short action or "Easy." is skipped)."""
    for found in _SENTENCE.finditer(reply):
        if len(units(found.group())) >= least:
            return found.group()
    return ""


def repeated_opening(reply: str, before: list[str]) -> bool:
    """Whether the reply opens with a sentence (four units or more) that lies in one of *before* (the
    greeting and the character's earlier replies), whole or two thirds of it in one run — the same
    opening with a word changed ("I'm Wren; I keep it safe here." after "I'm Wren; I keep it.")."""
    first = opening(reply)
    size = len(units(first))
    return size > 0 and longest_copy(first, before) * 3 >= size * 2


def pasted_units(reply: str, sources: list[str], run: int = 5) -> int:
    """How much of *reply* (in units) lies in runs of *run* or more units it shares with *sources*:
    a paste with a word changed here and there ("伞面上的手绘的几枝桃花已褪成深褐色") is still mostly
    covered, where its longest run is short."""
    text = units(reply)
    haystack = "\n".join(units(source) for source in sources)
    covered = [False] * len(text)
    for start in range(len(text)):
        length = run
        while start + length <= len(text) and text[start : start + length] in haystack:
            length += 1
        if length > run:
            covered[start : start + length - 1] = [True] * (length - 1)
    return sum(covered)


@dataclass(frozen=True)
class Pronouns:
    """A language's third-person pronouns and where its sentences end."""

    she: re.Pattern[str]
    he: re.Pattern[str]
    sentence_end: str


ZH_PRONOUNS = Pronouns(re.compile("她"), re.compile("他"), r"(?<=[。！？!?…\n])")
EN_PRONOUNS = Pronouns(
    re.compile(r"\b(she|her|hers|herself)\b", re.IGNORECASE),
    re.compile(r"\b(he|him|his|himself)\b", re.IGNORECASE),
    r"(?<=[.!?…\n])",
)


def pronoun_slips(
    reply: str,
    men: tuple[str, ...] = ("怀瑾", "周伯"),
    women: tuple[str, ...] = ("青梧", "掌柜", "老夫人"),
    pronouns: Pronouns = ZH_PRONOUNS,
) -> int:
    """Sentences that call a man of the lore 她 / she (and say no 他 / he): the pronoun after his name
    with no woman named between, or in a sentence naming nobody right after one whose last person
    named is him (「…怀瑾公子…走了。她还欠着半钱房钱。」).  「她记得那位怀瑾公子」 (she, then him) is no slip.
    Before 2026-12-03 10:00 any 她 in a sentence naming him counted."""
    slips = 0
    about_a_man = False
    for sentence in re.split(pronouns.sentence_end, reply):
        named = sorted(
            [(at.start(), True) for name in men for at in re.finditer(re.escape(name), sentence)]
            + [(at.start(), False) for name in women for at in re.finditer(re.escape(name), sentence)]
        )
        she = [at.start() for at in pronouns.she.finditer(sentence)]
        if she and not pronouns.he.search(sentence):
            last_before = [man for at, man in named if at < she[-1]]
            if (last_before and last_before[-1]) or (not named and about_a_man):
                slips += 1
        if named:
            about_a_man = named[-1][1]
    return slips


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")


def ascii_count(text: str) -> int:
    return sum(1 for ch in text if ch.isascii() and not ch.isspace())


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


def _seed_zh(home: Home) -> None:
    seed_home(home)


def _seed_en(home: Home) -> None:
    """The English card and its book, imported as ``pear import Wren.json Thornwood.json --card Wren``
    would, in the data folder ``pear init`` makes (its ``user_name`` is 旅人: until 2026-12-07 this
    bench wrote "Traveler" there, and hid that the prompt of an English card called the user 旅人)."""
    seed_home(home)
    folder = PANELS_DIR / "en"
    import_files(home, [folder / "Wren.json", folder / "Thornwood.json"], book="mount", card="Wren")


@dataclass(frozen=True)
class Panel:
    key: str
    card: str
    user: str
    turns: list[str]
    seed: Callable[[Home], None]
    answers_first: Callable[[str], bool]
    copy_limit: int
    men: tuple[str, ...]
    women: tuple[str, ...]
    pronouns: Pronouns
    in_language: Callable[[str], int]
    # Who the user is: the settings' name, what the prompt may call them, the name they give in a turn.
    user_names: tuple[str, ...] = ()


PANELS = {
    "zh": Panel(
        key="zh",
        card="青梧",
        user="旅人",
        turns=ZH_TURNS,
        seed=_seed_zh,
        answers_first=answers_room,
        copy_limit=COPY_LIMIT,
        men=("怀瑾", "周伯"),
        women=("青梧", "掌柜", "老夫人"),
        pronouns=ZH_PRONOUNS,
        in_language=cjk_count,
        user_names=("旅人", "陆行舟"),
    ),
    "en": Panel(
        key="en",
        card="Wren",
        user="Traveler",
        turns=EN_TURNS,
        seed=_seed_en,
        answers_first=answers_where,
        copy_limit=EN_COPY_LIMIT,
        men=("Aldric", "Tobin"),
        women=("Wren", "Lady Ashford", "mother", "grandmother"),
        pronouns=EN_PRONOUNS,
        in_language=ascii_count,
        user_names=("User", "Traveler", "旅人", "Rowan"),
    ),
}


# What a --json file keeps of a run besides its model, panel and seed.
_RECORDED = ("replies", "stops", "first_piece", "gen_seconds", "completion_tokens", "errors", "rss_mb", "sources")
# Recorded since 2026-12-03 14:00; a file from before has none (its greeting is not counted then).
_RECORDED_SINCE: dict[str, object] = {
    "greeting": "",
    "reply_seconds": [],
    # Since 2026-12-07 (issue 49), per turn: seconds to the first text (None: none shown), the CPU the
    # process spent (the model runs in it: see run_model), the prompt tokens llama.cpp evaluated
    # (re-read past the reused prefix; every try of the turn) and the prompt's tokens, text taken
    # back; and which code played (``--before``).
    "first_text": [],
    "cpu_seconds": [],
    "prompt_read": [],
    "prompt_tokens": [],
    "retracts": [],
    "code": "",
    "fallback": "",
}


@dataclass
class Run:
    model: str
    panel: Panel
    seed: int | None = None
    replies: list[str] = field(default_factory=list)
    stops: list[str] = field(default_factory=list)
    first_piece: list[float] = field(default_factory=list)
    gen_seconds: float = 0.0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)
    rss_mb: float = 0.0
    sources: list[str] = field(default_factory=list)  # the card's fields and the lore bodies
    greeting: str = ""  # the card's first message as the chat shows it
    reply_seconds: list[float] = field(default_factory=list)  # each turn, from sending to the beat's end
    first_text: list[float | None] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    prompt_read: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    retracts: list[int] = field(default_factory=list)
    code: str = ""  # "before" for a --before run
    fallback: str = ""  # the card's last-resort line (the guards' stand-in), when the code has one

    def to_json(self) -> dict[str, object]:
        return {"model": self.model, "panel": self.panel.key, "seed": self.seed, "turns": len(self.replies)} | {
            name: getattr(self, name) for name in (*_RECORDED, *_RECORDED_SINCE)
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Run:
        run = cls(str(data["model"]), PANELS[str(data["panel"])], data.get("seed"))  # type: ignore[arg-type]
        for name in _RECORDED:
            setattr(run, name, data[name])
        for name, missing in _RECORDED_SINCE.items():
            setattr(run, name, data.get(name, copy.copy(missing)))
        return run

    def copies(self) -> list[int]:
        return [longest_copy(reply, self.sources) for reply in self.replies]

    def pastes(self) -> list[int]:
        return [pasted_units(reply, self.sources) for reply in self.replies]

    def repeated_openings(self) -> list[bool]:
        before = [self.greeting] if self.greeting else []
        return [repeated_opening(reply, before + self.replies[:index]) for index, reply in enumerate(self.replies)]


def table_row(runs: list[Run]) -> dict[str, str]:
    """One model's row on one panel, the counts summed over its runs (one per seed)."""
    first = runs[0]
    panel = first.panel
    replies = [reply for run in runs for reply in run.replies]
    text = "".join(replies)
    visible = [ch for ch in text if not ch.isspace()]
    share = panel.in_language(text) / len(visible) if visible else 0.0
    repeat = max((longest_repeat(r) for r in replies), default=0)
    stops = [stop for run in runs for stop in run.stops]
    stopped = sum(1 for s in stops if s == "stop")
    echoed = sum(
        1 for run in runs for turn, reply in zip(panel.turns, run.replies, strict=False) if echoes(turn, reply)
    )
    seconds = sum(t for run in runs for t in run.reply_seconds)
    rate = sum(run.completion_tokens for run in runs) / seconds if seconds else 0.0
    ttft = [f"{t:.1f}" for t in first.first_piece[:2]] + ["–"] * (2 - len(first.first_piece[:2]))
    copies = [c for run in runs for c in run.copies()]
    pastes = [c for run in runs for c in run.pastes()]
    answered = sum(1 for run in runs if run.replies and panel.answers_first(run.replies[0]))
    slips = sum(pronoun_slips(reply, panel.men, panel.women, panel.pronouns) for reply in replies)
    unit = "chars" if panel.key == "zh" else "words"
    seeds = ",".join("default" if run.seed is None else str(run.seed) for run in runs)
    return {
        "model": first.model,
        "panel": panel.key,
        "seeds": seeds,
        "in the language": f"{share:.0%}",
        "longest repeat (chars)": str(repeat),
        "ended by stop": f"{stopped}/{len(stops)}",
        "echoes": f"{echoed}/{len(replies)}",
        "answers turn 1": f"{answered}/{len(runs)}",
        "copies (longest)": f"{sum(c >= panel.copy_limit for c in copies)} ({max(copies, default=0)} {unit})",
        "pastes (most)": f"{sum(c >= panel.copy_limit for c in pastes)} ({max(pastes, default=0)} {unit})",
        "pronoun slips": str(slips),
        "model claims": str(sum(claims_to_be_a_model(reply) for reply in replies)),
        "repeated openings": f"{sum(r for run in runs for r in run.repeated_openings())}/{len(replies)}",
        "tok/s end to end": f"{rate:.1f}" if seconds else "–",
        "reply s (median, max)": _median_max([t for run in runs for t in run.reply_seconds]),
        "TTFT beat 1 (s)": ttft[0],
        "TTFT beat 2 (s)": ttft[1],
        "RSS (GB)": f"{max(run.rss_mb for run in runs) / 1024:.2f}",
    }


def _median_max(seconds: list[float]) -> str:
    """The median and the longest reply in whole seconds, as "12 (30)" ("–" when none were timed)."""
    return f"{statistics.median(seconds):.0f} ({max(seconds):.0f})" if seconds else "–"


def reader_row(runs: list[Run]) -> dict[str, str]:
    """Issue 49's panel for one model, panel and code: the reader's checks (``embedded_checks``: not
    the guards' own functions), the reply's shape, how early its first text came, and its cost."""
    first = runs[0]
    panel = first.panel
    turns = [(run, index) for run in runs for index in range(len(run.replies))]
    replies = [run.replies[i] for run, i in turns]
    sizes = [checks.visible_chars(r) if panel.key == "zh" else checks.words(r) for r in replies]
    counted = [checks.sentences(r) for r in replies]
    shaped = sum(
        2 <= n <= 4 and all(checks.dialogue_and_action(r)) for n, r in zip(counted, replies, strict=True)
    )
    echoed = sum(checks.echoes_user(panel.turns[i], run.replies[i]) for run, i in turns)
    as_user = sum(
        checks.speaks_as_user(run.replies[i], list(panel.user_names), panel.turns[:i]) for run, i in turns
    )
    fallback = sum(bool(run.fallback) and run.fallback.strip("（）*. ") in run.replies[i] for run, i in turns)
    # How long before the reply's end its first text was on the screen (a reply with none: 0).
    lead = [
        run.reply_seconds[i] - run.first_text[i] if i < len(run.first_text) and run.first_text[i] is not None else 0.0
        for run, i in turns
    ]
    cpu = [run.cpu_seconds[i] for run, i in turns if i < len(run.cpu_seconds)]
    # The prompt re-read on turns after the first (the first reads the whole prompt once).
    read = [run.prompt_read[i] for run, i in turns if 0 < i < len(run.prompt_read)]
    total = [run.prompt_tokens[i] for run, i in turns if 0 < i < len(run.prompt_tokens)]
    return {
        "model": first.model,
        "code": first.code or "this",
        "panel": f"{panel.key} {len(runs)}×{len(first.replies)}",
        # (Chinese in characters, English in words: one column for both panels)
        "length, median (zh chars, en words)": f"{statistics.median(sizes):.0f}" if sizes else "–",
        "sentences, median": f"{statistics.median(counted):.0f}" if counted else "–",
        "2–4 sentences, dialogue and action": f"{shaped}/{len(replies)}",
        "echoes": f"{echoed}/{len(replies)}",
        "speaks as the user": f"{as_user}/{len(replies)}",
        "last-resort line": f"{fallback}/{len(replies)}",
        "repeated openings": f"{sum(r for run in runs for r in run.repeated_openings())}/{len(replies)}",
        "first text ≥ 1 s before the end": f"{sum(x >= 1.0 for x in lead)}/{len(replies)}",
        "taken back": str(sum(sum(run.retracts) for run in runs)),
        "CPU s per reply, median (max)": _median_max_1(cpu),
        "prompt re-read per turn, median (of)": (
            f"{statistics.median(read):.0f} ({statistics.median(total):.0f})" if read and total else "–"
        ),
        "reply s, median (max)": _median_max([t for run in runs for t in run.reply_seconds]),
    }


def _median_max_1(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({max(values):.1f})" if values else "–"


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


class _Meter:
    """The in-process model's work per turn: CPU of this process (llama.cpp's threads run in it) and
    the tokens it evaluated — the prompt's remainder past the reused prefix on each try (the first
    ``eval`` of a generation), then one a sampled token."""

    def __init__(self, llm: object) -> None:
        self.prompt_read = 0
        self._prompt_next = False
        chat, evaluate = llm.create_chat_completion, llm.eval  # type: ignore[attr-defined]

        def create_chat_completion(*args: object, **kwargs: object) -> object:
            self._prompt_next = True
            return chat(*args, **kwargs)

        def counted(tokens: list[int]) -> object:
            if self._prompt_next:
                self.prompt_read += len(tokens)
                self._prompt_next = False
            return evaluate(tokens)

        llm.create_chat_completion = create_chat_completion  # type: ignore[attr-defined]
        llm.eval = counted  # type: ignore[attr-defined]


def run_model(label: str, path: Path, panel: Panel, seed: int | None, turns: int) -> Run:
    """One chat of *turns* turns through the real app, the model in this process (its CPU and the
    tokens it reads are counted per turn: :class:`_Meter`; the worker process costs the same CPU a
    token, docs/benchmarks/embedded-model.md)."""
    run = Run(label, panel, seed)
    base = rss_mb()
    # The sampler's seed: the small-model defaults are what the provider starts from.
    embedded.SMALL_SAMPLER.pop("seed", None)
    if seed is not None:
        embedded.SMALL_SAMPLER["seed"] = seed
    provider = embedded._shared[str(path)] = embedded.EmbeddedProvider(path, in_process=True)
    meter = _Meter(provider.llama())
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        panel.seed(home)
        run.sources = copy_sources(home, panel.card)
        run.greeting = greeting_text(home, panel.card)
        run.fallback = fallback_text(home, panel.card)
        app = PearApp(home)
        options = ChatOptions(mode="stage", connection=Connection(local_model=str(path)))
        session = app.new_chat(panel.card, options)
        for turn in panel.turns[:turns]:
            read_before, cpu_before = meter.prompt_read, time.process_time()
            start = time.perf_counter()
            first = last = None
            pieces: list[str] = []
            stop = "?"
            taken = 0
            prompt = 0
            for event in session.send(turn):
                now = time.perf_counter()
                if isinstance(event, TextDeltaEvent) and event.text:
                    first = first if first is not None else now
                    last = now
                    pieces.append(event.text)
                elif getattr(event, "type", "") == "text_retract":  # (code before issue 49 has none)
                    taken += 1
                    text = str(getattr(event, "text", ""))
                    joined = "".join(pieces)
                    pieces = [joined[: len(joined) - len(text)] if joined.endswith(text) else joined]
                elif isinstance(event, DoneEvent):
                    stop = event.stop_reason
                    run.completion_tokens += int(event.usage.get("completion_tokens", 0))
                    prompt = int(event.usage.get("prompt_tokens", 0))
                elif isinstance(event, ErrorEvent):
                    run.errors.append(event.message)
            run.reply_seconds.append(time.perf_counter() - start)
            run.cpu_seconds.append(round(time.process_time() - cpu_before, 3))
            run.prompt_read.append(meter.prompt_read - read_before)
            run.prompt_tokens.append(prompt)
            run.retracts.append(taken)
            reply = "".join(pieces)
            run.replies.append(reply)
            run.stops.append(stop)
            run.first_text.append(None if first is None else round(first - start, 3))
            if first is not None and last is not None:
                run.first_piece.append(first - start)
                run.gen_seconds += last - first
            print(f"  [{label} {panel.key} {seed}] {len(run.replies)}/{turns} {stop} {reply[:40]!r}", file=sys.stderr)
        run.rss_mb = rss_mb() - base + workers_rss_mb()
    embedded.SMALL_SAMPLER.pop("seed", None)
    return run


def unload() -> None:
    """Unload before the next model (the app keeps one provider per GGUF)."""
    for provider in embedded._shared.values():
        provider.close()
    embedded._shared.clear()


def copy_sources(home: Home, card_name: str) -> list[str]:
    """What a reply must not paste: the card's fields and the bodies of its lore."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.workspace.cards import open_card

    materials = load_stage_materials(home, open_card(home, card_name))
    card = materials.card
    fields = [card.description, card.personality, card.scenario, card.first_mes, card.mes_example]
    return [text for text in fields if text] + [entry.content for entry in materials.corpus.entries]


def fallback_text(home: Home, card_name: str) -> str:
    """The card's last-resort line (what the guards show when nothing in character is left)."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.stage.compact import fallback_reply
    from peargarden.workspace.cards import open_card

    materials = load_stage_materials(home, open_card(home, card_name))
    return fallback_reply(materials.card, materials.stage)


def greeting_text(home: Home, card_name: str) -> str:
    """The card's greeting as the chat shows it (its macros filled in)."""
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.modes.stage.request import greeting_turns
    from peargarden.workspace.cards import open_card

    turns = greeting_turns(load_stage_materials(home, open_card(home, card_name)))
    return turns[0].text if turns else ""


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
    """Every reply, with what the checks found in it, so a reader can judge them (before / after:
    the same chat by each code, one after the other)."""
    lines = ["# Embedded models on the quality panels: the replies", "", "Turns in order, one chat per run.", ""]
    for run in sorted(runs, key=lambda r: (r.model, r.panel.key, r.seed or 0, r.code != "before")):
        seed = "default" if run.seed is None else run.seed
        code = f", code {run.code}" if run.code else ""
        lines += [f"## {run.model}, panel {run.panel.key}, seed {seed}{code}", ""]
        copies, pastes, repeats = run.copies(), run.pastes(), run.repeated_openings()
        for index, (turn, reply, stop) in enumerate(zip(run.panel.turns, run.replies, run.stops, strict=False), 1):
            i = index - 1
            note = f"{stop}, copy {copies[i]}, pasted {pastes[i]}"
            note += f", {checks.visible_chars(reply)} chars, {checks.sentences(reply)} sentences"
            note += ", repeated opening" if repeats[i] else ""
            note += ", ECHO" if checks.echoes_user(turn, reply) else ""
            if checks.speaks_as_user(reply, list(run.panel.user_names), run.panel.turns[:i]):
                note += ", SPEAKS AS THE USER"
            if i < len(run.cpu_seconds):
                first = run.first_text[i]
                shown = f"first text {first:.1f} s of {run.reply_seconds[i]:.1f} s" if first is not None else "no text"
                note += f", {shown}, CPU {run.cpu_seconds[i]:.1f} s, prompt read {run.prompt_read[i]}"
                note += f" of {run.prompt_tokens[i]}" if run.prompt_tokens[i] else ""
                note += f", {run.retracts[i]} taken back" if run.retracts[i] else ""
            lines += [
                f"**{index}. {run.panel.user}:** {turn}",
                "",
                f"**{run.panel.card} ({note}):** {reply.strip() or '(empty)'}",
                "",
            ]
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
        for index, turn in enumerate(ZH_TURNS, 1):
            staged = compact_for(materials, greeting_turns(materials), turn)
            system = staged.system + ("\n\n" + staged.injection if staged.injection else "")  # and the lore note
            entries = [*materials.corpus.constants, *staged.hits]
            lore = "、".join(dict.fromkeys(e.title for e in entries if e.title in system))
            sizes = [len(vocab.tokenize(system.encode("utf-8"), add_bos=False, special=True)) for _, vocab in vocabs]
            print(f"| {index} | {lore} | {len(system)} | {count(system)} | " + " | ".join(map(str, sizes)) + " |")


def print_table(runs: list[Run]) -> None:
    groups: dict[tuple[str, str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.model, run.panel.key, run.code), []).append(run)
    _print_rows([table_row(group) for group in groups.values()])
    print()
    _print_rows([reader_row(group) for group in groups.values()])


def _print_rows(rows: list[dict[str, str]]) -> None:
    header = list(rows[0])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row[h] for h in header) + " |")


# The ways of keeping a small model's reply from ending after one short sentence that issue 49 asked
# to measure (embedded.SMALL_LENGTH, stage.compact.EXAMPLES_AS_TURNS): nothing; holding the end-of-text
# and line-break tokens until a minimum of tokens; continuing once a reply shorter than 40 characters;
# the card's example dialogue as turns of their own; both.
VARIANTS: dict[str, dict[str, object]] = {
    "none": {"method": ""},
    "hold": {"method": "hold", "min_tokens": 40},
    "hold24": {"method": "hold", "min_tokens": 24},
    "continue": {"method": "continue", "min_chars": 40},
    "examples": {"method": "", "examples": True},
    "examples-hold24": {"method": "hold", "min_tokens": 24, "examples": True},
}

# Issue 49's panel: what a person played (3 chats × 8 turns in Chinese, 2 × 6 in English), seeded.
ACCEPTANCE = (("zh", (1, 2, 3), 8), ("en", (1, 2), 6))


def play_child(job: dict[str, object]) -> None:
    """``--play-child``: one chat, its Run as JSON on stdout's last line (run by :func:`play_apart`)."""
    variant = VARIANTS.get(str(job.get("variant") or ""))
    if variant is not None:
        from peargarden.stage import compact

        embedded.SMALL_LENGTH.update({key: value for key, value in variant.items() if key != "examples"})
        compact.EXAMPLES_AS_TURNS = bool(variant.get("examples"))
    run = run_model(str(job["label"]), Path(str(job["path"])), PANELS[str(job["panel"])],
                    job.get("seed"), int(job["turns"]))  # type: ignore[arg-type]  # fmt: skip
    unload()
    print(json.dumps(run.to_json(), ensure_ascii=False))


def play_apart(job: dict[str, object], src: Path | None) -> Run:
    """One chat in a child process: this checkout's code, or *src* (another checkout's ``src``)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src.resolve()), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--play-child", json.dumps(job, ensure_ascii=False)],
        env=env, stdout=subprocess.PIPE, text=True, check=True,
    )  # fmt: skip
    run = Run.from_json(json.loads(done.stdout.strip().splitlines()[-1]))
    run.code = "before" if src is not None else str(job.get("variant") or "")
    return run


def jobs_for(args: argparse.Namespace, label: str, path: Path) -> list[dict[str, object]]:
    if args.acceptance:
        plan = [
            (key, [seed for seed in seeds if not args.seed or seed in args.seed], turns)
            for key, seeds, turns in ACCEPTANCE
            if key in (args.panel or [key])
        ]
    else:
        seeds: list[int | None] = list(args.seed) if args.seed else [None]
        plan = [(key, seeds, args.upto) for key in args.panel or ["zh", "en"]]
    return [
        {"label": label, "path": str(path), "panel": key, "seed": seed, "turns": min(turns, len(PANELS[key].turns))}
        for key, seeds, turns in plan
        for seed in seeds
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", default=[], help="catalog name or GGUF path (repeatable)")
    parser.add_argument("--panel", action="append", choices=sorted(PANELS), help="zh, en (repeatable; default both)")
    parser.add_argument("--seed", action="append", type=int, help="sampler seed (repeatable; default the runtime's)")
    parser.add_argument("--report", type=Path, default=Path("embedded_quality_report.md"))
    parser.add_argument("--json", type=Path, help="also write the runs (replies, timings) as JSON")
    parser.add_argument("--recount", type=Path, help="count the checks again on a --json file; play nothing")
    parser.add_argument("--prompt-size", action="store_true", help="print the compact system prompt's size per turn")
    parser.add_argument("--upto", type=int, default=12, help="play only the first N turns (6: up to the long turn)")
    parser.add_argument(
        "--acceptance",
        action="store_true",
        help="issue 49's panel: zh seeds 1-3 × 8 turns, en seeds 1-2 × 6 turns (--seed: only those of them)",
    )
    parser.add_argument(
        "--before", type=Path, help="another checkout (a folder with src/peargarden): each chat played by both, in turn"
    )
    parser.add_argument(
        "--variant",
        action="append",
        choices=sorted(VARIANTS),
        help="a way to lengthen a short reply (repeatable: each plays the same chats, in turn; see VARIANTS)",
    )
    parser.add_argument("--play-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play_child:
        play_child(json.loads(args.play_child))
        return
    if args.recount:
        print_table([Run.from_json(item) for item in json.loads(args.recount.read_text(encoding="utf-8"))])
        return
    models = models_to_run(args.model)
    if not models:
        raise SystemExit("no embedded model is fetched: run `pear models --fetch qwen-0.5b` first")
    if args.prompt_size:
        prompt_sizes(models)
        return
    runs: list[Run] = []
    for label, path in models:
        started = time.perf_counter()
        for number, job in enumerate(jobs_for(args, label, path)):
            if args.variant:
                # Each way of lengthening in turn on the same chat, the order rotated each chat.
                turn = number % len(args.variant)
                for variant in args.variant[turn:] + args.variant[:turn]:
                    runs.append(play_apart({**job, "variant": variant}, None))
                continue
            if args.before is None:
                runs.append(play_apart(job, None))
                continue
            # Before and after in turn, the order swapped each chat: both see the machine's load alike.
            sources = [args.before / "src", None]
            for src in sources if number % 2 == 0 else sources[::-1]:
                runs.append(play_apart(job, src))
        print(f"{label}: {time.perf_counter() - started:.0f}s", file=sys.stderr)
    runs.sort(key=lambda run: (run.code != "before", run.model, run.panel.key))
    print_table(runs)
    write_report(args.report, runs)
    if args.json:
        args.json.write_text(
            json.dumps([run.to_json() for run in runs], ensure_ascii=False, indent=1), encoding="utf-8"
        )
    print(f"replies: {args.report}", file=sys.stderr)


if __name__ == "__main__":
    main()
