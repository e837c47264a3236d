"""Lore bodies as a few short facts for a small model (the small-model profile, :mod:`.compact`).

A 0.5B model given a lore entry's whole body in its prompt pastes it: asked about the old umbrella,
Qwen2.5-0.5B answered with 71 characters of the 旧油纸伞 entry word for word; asked about 怀瑾, it
called him 她 though the entry says 他 throughout.  So the profile sends, per entry:

* **the facts that matter now**: the body's first sentence (what the entry is) and the one or two
  sentences that share the most words with the user's new line (asked about the umbrella's 来历,
  the sentence that says she never tells it), in the body's order — not the whole body;
* **the person's pronoun, stated**: an entry about a person (its body opens with one of its names,
  and its first two sentences speak of him or her) gets ``（男）`` / ``（女）`` — ``(he)`` / ``(she)``
  in English — after its title, taken from the pronouns the body uses (only when they all agree).

Words are compared as the echo guard compares them: pairs of Chinese characters, or whole English
words.  Pure functions: text in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["FACT_SENTENCES", "lore_facts", "person_pronoun", "sentences"]

#: Sentences sent besides the first one: the ones the user's words touch most.
FACT_SENTENCES = 2

_CJK_END = "。！？；…"
_ASCII_END = ".!?;"
_CLOSERS = "”’」』）)\"'"
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
# Common English words that say nothing about what a sentence is about.
_STOP_WORDS = (
    "about after also been before does from have here into just know only said says some than that the their "
    "them then there they this those what when where which while with would your you yours"
)
_STOP = frozenset(_STOP_WORDS.split())
# What a sentence must share with the user's words to be sent: a pair of characters or a word, or two
# single characters (one, 水 of 热水 in 栖水镇, is chance).
_MIN_SHARED = 2
# How far into the second sentence its pronoun may come and still be the entry's person.
_LEAD_UNITS = 8
# Characters in nearly every Chinese sentence: sharing one says nothing.
_COMMON_CHARS = frozenset(
    "的了是在有我你他她它这那个们就也都和与及上下不没一人之说着过么吗呢吧啊呀把被从对到会能要想还可以得地"
)
# 他 / 她 inside these words is no pronoun of the person (其他 "other", 他们 "they", 他乡 "elsewhere").
_NOT_PRONOUN = re.compile(r"其他|其她|他们|她们|他人|他乡|他日|他处|他方")
_ZH_HE = re.compile("他")
_ZH_SHE = re.compile("她")
_EN_HE = re.compile(r"\b(he|him|his|himself)\b", re.IGNORECASE)
_EN_SHE = re.compile(r"\b(she|her|hers|herself)\b", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """*text* cut after each sentence: Chinese 。！？；… (and the closing quote marks after them), an
    ASCII . ! ? ; followed by a space or the end, or a line break.  Joined again they give *text*."""
    out: list[str] = []
    start = index = 0
    while index < len(text):
        char = text[index]
        index += 1
        ends = char in _CJK_END or char == "\n"
        if char in _ASCII_END:
            ends = index == len(text) or text[index].isspace() or text[index] in _CLOSERS
        if not ends:
            continue
        while index < len(text) and (text[index] in _CJK_END or text[index] in _ASCII_END or text[index] in _CLOSERS):
            index += 1
        while index < len(text) and text[index] in " \t\n":
            index += 1
        out.append(text[start:index])
        start = index
    if start < len(text):
        out.append(text[start:])
    return out


def _terms(text: str) -> dict[str, int]:
    """What *text* is about, as comparable pieces with their weights: pairs of adjacent Chinese
    characters (2), single Chinese characters but the commonest (1), English words (2; case-folded,
    four letters or more, common words left out)."""
    chars = [char if _CJK.match(char) else " " for char in text]
    terms = {char: 1 for char in chars if char != " " and char not in _COMMON_CHARS}
    terms |= {chars[i] + chars[i + 1]: 2 for i in range(len(chars) - 1) if " " not in (chars[i], chars[i + 1])}
    for word in _WORD.findall(text):
        folded = word.casefold()
        if len(folded) >= 4 and folded not in _STOP:
            terms[folded.removesuffix("s")] = 2  # "rains" and "rain", "stories" and "story" apart
    return terms


def _shared(terms: dict[str, int], wanted: dict[str, int]) -> int:
    return sum(weight for term, weight in terms.items() if term in wanted)


def lore_facts(body: str, asked: str = "", *, most: int = FACT_SENTENCES) -> str:
    """*body*'s first sentence and the *most* sentences that share the most terms with *asked* (the
    user's new words; none shared: the first sentence alone), in the body's order."""
    parts = [part for part in sentences(body.strip()) if part.strip()]
    if len(parts) <= 1:
        return body.strip()
    wanted = _terms(asked)
    scored = [(_shared(_terms(part), wanted), -index) for index, part in enumerate(parts[1:], 1)]
    picked = sorted(-rank for score, rank in sorted(scored, reverse=True)[:most] if score >= _MIN_SHARED)
    kept = [parts[0], *(parts[index] for index in picked)]
    return _join(part.strip() for part in kept)


def _join(parts: Iterable[str]) -> str:
    """Sentences joined again: with a space between sentences of a spaced script, else none."""
    out = ""
    for part in parts:
        if out and (part[:1].isascii() or out[-1:].isascii()) and not _CJK.match(part[:1]):
            out += " "
        out += part
    return out


def person_pronoun(body: str, names: Iterable[str]) -> str:
    """``"男"``/``"女"`` (``"he"``/``"she"`` for an English body) when the entry is about a person, else
    ``""``: the body opens with one of *names* (its title and keys), and the pronouns that speak of
    it — any in the first sentence, and one that opens the second (at most :data:`_LEAD_UNITS`
    characters or words before it: "Ten years ago, in spring, he came…") — are of one sex.  Nothing
    stated when none does, or both do (an inn whose opening speaks of a grandfather and of the
    innkeeper: "客栈是青梧的祖父开的，匾额是他亲手所题" names someone else first)."""
    text = body.strip()
    folded = text.casefold()
    if not any(name.strip() and folded.startswith(name.strip().casefold()) for name in names):
        return ""
    parts = sentences(text)[:2]
    chinese = len(_CJK.findall(text)) * 2 > len(_WORD.findall(text))
    he_she = (_ZH_HE, _ZH_SHE) if chinese else (_EN_HE, _EN_SHE)
    found = [_speaks_of(pattern, parts) for pattern in he_she]
    if found[0] == found[1]:
        return ""
    if chinese:
        return "男" if found[0] else "女"
    return "he" if found[0] else "she"


def _speaks_of(pronoun: re.Pattern[str], parts: list[str]) -> bool:
    """*pronoun* anywhere in the first sentence, or near the start of the second."""
    if not parts:
        return False
    if pronoun.search(_NOT_PRONOUN.sub("", parts[0])):
        return True
    if len(parts) < 2:
        return False
    second = _NOT_PRONOUN.sub("", parts[1])
    at = pronoun.search(second)
    return at is not None and _units(second[: at.start()]) <= _LEAD_UNITS


def _units(text: str) -> int:
    """Chinese characters and English words in *text*."""
    return len(_CJK.findall(text)) + len(_WORD.findall(text))
