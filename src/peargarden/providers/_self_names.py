"""A character giving itself someone else's name: 「我叫陆行舟」 from 青梧, "I'm Rowan" from Wren.

On issue 49's English panel Qwen2.5-0.5B, as Wren, wrote "This is my Thornwood, but I'm Rowan; I keep
it." two turns after the user said "My name is Rowan" (the greeting's "I'm Wren; I keep it." with the
user's name put in), and "My Thornwood, but I'm Aldric; I keep it." — Aldric, a man of the lore.
The echo guard does not see it (four words) and the sentence guard's repeats do not either (the
name changed).  So a sentence is judged by the name it gives its speaker:

* **who may be named**: the request's :class:`.base.Cast` — the names the character goes by (the
  card's name and its parts, a lore entry's names for the character), the user's (the persona's
  name), and the other persons of the card and its lore — and the names the user gave itself in the
  chat (:func:`given_names`: "My name is Rowan.", 「我叫陆行舟，从县城来」);
* **a self-introduction**: "I'm X", "I am X", "my name is X", "call me X", "I'm called X", "I'm a
  ranger named X"; 「我是X」「我叫X」「我名叫X」「我就是X」「在下X」「我是一个名为X的人」 — where X is
  one of the user's or another person's names and not one of the character's own.  "I'm Aldric's
  sister" and 「我是怀瑾公子的故人」 speak *of* him: a possessive after the name ('s, or 的 / 之 / 家
  before the clause ends) is no claim, unless a description named the speaker first (名为X的).

:func:`wrong_name` says whose name a sentence takes (``"user"`` or ``"name"``); the sentence guard
(:mod:`._sentence_guard`) retries a reply that opens with one and cuts such a sentence later, as it
does a claim to be a model.  Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

from .base import Cast

__all__ = ["Names", "given_names", "names_for", "wrong_name"]

# The English forms a speaker names itself with (case-insensitive), then the name.
_EN_INTRO = r"\b(?:I(?:'m|’m| am)(?: called| named)?|my name(?:'s|’s| is)|call me|they call me|I go by)\s+"
# The Chinese ones (在下: the speaker's modest self-reference in a story told in the old style).
_ZH_INTRO = r"(?:我(?:就|便|也|才|可)?(?:是|叫|名叫|唤作|的名字(?:是|叫))|在下|本人)\s*"
# The speaker described, then named: 「我是一个名为陆行舟的中年人」 (Qwen2.5-0.5B as 青梧, asked out of
# character what model it is, 2026-12-07), "I'm a ranger called Aldric".  The name is the speaker's
# even with 的 after it.
_ZH_NAMED = r"我(?:是|乃)[^，。！？；：,.!?\n]{0,8}?(?:名为|名叫|叫做|叫作|唤作|名唤)\s*"
_EN_NAMED = r"\bI(?:'m|’m| am)\s+(?:a|an|the|just a)\b[^.!?,;:\n]{0,30}?\b(?:named|called)\s+"
# Speaking *of* the person, not as them: "Aldric's", 「怀瑾公子的」「怀瑾之」「周伯家」 before the clause ends.
_EN_OF = re.compile(r"^(?:'s|’s)\b")
_ZH_OF = re.compile(r"^[^，。！？；：,.!?;:\n]*?[的之家]")
# What the user calls itself in its own lines (only the unmistakable forms: 「我是县城来的」 is no name).
_EN_GIVEN = re.compile(
    r"\b(?i:my name(?:'s|’s| is)|call me|I(?:'m|’m| am) called)\s+([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)"
    r"|\bI(?:'m|’m| am)\s+([A-Z][\w-]*)(?=\s*[.,;!?]|\s*$)"
)
_ZH_GIVEN = re.compile(r"(?:我(?:叫|名叫|的名字(?:是|叫))|在下)\s*([\u4e00-\u9fff]{2,4}?)(?=[，。！？、；：,.!?\s]|$)")
_NOT_NAMES = frozenset({"I", "Im", "Not", "Just", "Only", "So", "Sorry", "Fine", "Here", "Sure"})


def given_names(line: str) -> list[str]:
    """The names *line* gives its speaker: "My name is Rowan." → ``["Rowan"]``, 「我叫陆行舟，从县城来」
    → ``["陆行舟"]``; none for 「我是县城来的」 or "I'm tired."."""
    out: list[str] = []
    for found in _EN_GIVEN.finditer(line):
        name = (found.group(1) or found.group(2) or "").strip()
        if name and name not in _NOT_NAMES:
            out.append(name)
    out.extend(found.group(1) for found in _ZH_GIVEN.finditer(line))
    return out


class Names(msgspec.Struct, frozen=True):
    """The names a reply's sentences are judged by (see :func:`names_for`)."""

    own: tuple[str, ...]
    user: tuple[str, ...]
    others: tuple[str, ...]


def names_for(cast: Cast, user_lines: Iterable[str]) -> Names:
    """The request's cast with the names the user gave itself in *user_lines* added to the user's; a
    name the character goes by is never someone else's."""
    own = tuple(name.strip() for name in cast.own if name.strip())
    folded = {name.casefold() for name in own}
    given = [name for line in user_lines for name in given_names(line)]
    user = _distinct((*cast.user, *given), folded)
    others = _distinct(cast.others, folded | {name.casefold() for name in user})
    return Names(own, user, others)


def _distinct(names: Iterable[str], taken: set[str]) -> tuple[str, ...]:
    out: dict[str, str] = {}
    for name in names:
        name = name.strip()
        if name and name.casefold() not in taken:
            out.setdefault(name.casefold(), name)
    return tuple(out.values())


def wrong_name(sentence: str, names: Names) -> str:
    """``"user"`` when *sentence* gives its speaker one of the user's names, ``"name"`` when another
    person's of the card or lore, else ``""`` (the character's own name, or no self-introduction)."""
    for intro, wide, named in _INTROS:
        for found in re.finditer(intro, sentence, re.IGNORECASE):
            rest = sentence[found.end() :]
            if _starts_with(rest, names.own, wide):
                continue
            for reason, group in (("user", names.user), ("name", names.others)):
                name = _starts_with(rest, group, wide)
                if name and (named or not _speaks_of(rest[len(name) :], wide)):
                    return reason
    return ""


# (pattern, Chinese, the name follows a description: no possessive reading)
_INTROS = ((_EN_INTRO, False, False), (_EN_NAMED, False, True), (_ZH_INTRO, True, False), (_ZH_NAMED, True, True))


def _starts_with(text: str, names: Iterable[str], wide: bool) -> str:
    """The longest of *names* that *text* starts with (whole words in English), or ""."""
    folded = text.casefold()
    best = ""
    for name in names:
        if len(name) <= len(best) or not folded.startswith(name.casefold()):
            continue
        after = text[len(name) : len(name) + 1]
        if wide or not after or not (after.isalnum() or after == "_"):
            best = name
    return best


def _speaks_of(after: str, wide: bool) -> bool:
    """The words after the name make it a possessive ("Aldric's", 「怀瑾公子的」)."""
    return bool(_ZH_OF.match(after)) if wide else bool(_EN_OF.match(after))
