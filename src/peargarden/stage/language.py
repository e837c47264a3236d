"""Which language a card is written in, judged from its text's script (pure).

The stage tells the model which language to write in only when it is known: the user's
``language`` setting, else the card's own script.  A card with too little text, or a mix where no
script clearly leads, gives ``""`` and the prompt states no language (the model follows the card).
"""

from __future__ import annotations

import re

from .card import StageCard

__all__ = ["ENGLISH_USER", "card_language", "text_language", "user_name_for"]

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")
_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]{2,}")
# Markup, macros and code say nothing about the story's language.
_NOISE = re.compile(r"\{\{.*?\}\}|<[^>\n]*>|https?://\S+", re.S)

# Below this many signals (characters of a CJK script, words of an alphabetic one): unknown.
_MIN_SIGNAL = 12
# How much of each field is read: a card's language shows long before this, and a field of millions
# of characters (a hostile card) would otherwise be matched whole, its matches listed (1 GB at 12M).
_SAMPLE_CHARS = 20_000


def text_language(text: str) -> str:
    """``中文``, ``日语``, ``韩语``, ``英语``, ``俄语`` — or ``""`` when the text does not say."""
    clean = _NOISE.sub(" ", text)
    kana = _count(_KANA, clean)
    han = _count(_HAN, clean)
    # A CJK character is about a word: compare characters of CJK scripts with words of alphabets.
    counts = {
        "日语": kana + (han if kana * 5 >= han else 0),
        "中文": han if kana * 5 < han else 0,
        "韩语": _count(_HANGUL, clean),
        "英语": _count(_LATIN_WORD, clean),
        "俄语": _count(_CYRILLIC_WORD, clean),
    }
    best = max(counts, key=lambda name: counts[name])
    if counts[best] < _MIN_SIGNAL:
        return ""
    runner_up = max(count for name, count in counts.items() if name != best)
    return best if counts[best] >= 2 * runner_up else ""


def _count(pattern: re.Pattern[str], text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def card_language(card: StageCard) -> str:
    """The language of the card's own text (description, personality, scenario, greeting, examples),
    each read up to its first 20,000 characters."""
    fields = (card.description, card.personality, card.scenario, card.first_mes, card.mes_example)
    return text_language("\n".join(field[:_SAMPLE_CHARS] for field in fields))


#: What a prompt in an alphabetic language calls the user when the settings keep the Chinese default
#: (SillyTavern's own default name for the user).
ENGLISH_USER = "User"
_ALPHABETIC = frozenset({"英语", "英文", "english", "en", "俄语"})


def user_name_for(language: str, name: str, default: str) -> str:
    """*name* — but ``User`` when the prompt is in English (or another alphabetic language) and
    *name* is the shipped Chinese *default* nobody chose (issue 49: an English card's prompt called
    the user 旅人, the seeded ``user_name``)."""
    if name == default and language.strip().casefold() in _ALPHABETIC and _HAN.search(name):
        return ENGLISH_USER
    return name
