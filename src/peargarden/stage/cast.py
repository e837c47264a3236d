"""Who is who in a chat, by name: the character's names, the user's, and the other persons of the lore.

A small model's guard (``providers._self_names``) cuts a reply in which the character calls itself by
someone else's name — "I'm Rowan" from Wren, 「我叫怀瑾」 from 青梧 (issue 49: Qwen2.5-0.5B gave Wren
the user's name, and Aldric's).  It needs the names, which only the card and its lore know:

* **the character's own**: the card's name, each word of a name of several ("Wren Ashdown": "Wren",
  "Ashdown"), and the names of a lore entry about the character (a person's entry that one of those
  names keys: 「青梧」「掌柜」 if such an entry has them) — never someone else's;
* **the user's**: the persona's name (the stage's ``user_name``);
* **the other persons**: the title and keys of each lore entry about a person — its body opens with
  one of its names and speaks of him or her (:func:`.lore_facts.person_pronoun`: 怀瑾 / 怀瑾公子 /
  沈怀瑾, Aldric / Aldric Ashford / the ranger) — but a place, a thing or a custom is nobody.

Names of one character are left out (a key "他" names no one).  Pure.
"""

from __future__ import annotations

from .assemble import LoreCorpus, StageSettings
from .card import StageCard
from .lore.entries import LoreEntry
from .lore_facts import person_pronoun

__all__ = ["cast_names"]

_MIN_NAME = 2


def cast_names(
    card: StageCard, settings: StageSettings, corpus: LoreCorpus
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(the character's names, the user's, the other persons') — see the module docstring."""
    own = _names([card.name, *card.name.split()])
    folded = {name.casefold() for name in own}
    persons = [entry for entry in corpus.entries if entry.enabled and _is_person(entry)]
    others: list[str] = []
    for entry in persons:
        names = _names([entry.title, *entry.keys])
        if any(name.casefold() in folded for name in names):
            own += tuple(name for name in names if name.casefold() not in folded)
            folded.update(name.casefold() for name in names)
        else:
            others.extend(names)
    user = _names([settings.user_name])
    return own, tuple(n for n in user if n.casefold() not in folded), _names(others, folded)


def _is_person(entry: LoreEntry) -> bool:
    return bool(person_pronoun(entry.content, (entry.title, *entry.keys)))


def _names(names: list[str], taken: set[str] | None = None) -> tuple[str, ...]:
    """*names* stripped, distinct, at least two characters, none of *taken*."""
    out: dict[str, str] = {}
    for name in names:
        name = name.strip()
        if len(name) >= _MIN_NAME and name.casefold() not in (taken or set()):
            out.setdefault(name.casefold(), name)
    return tuple(out.values())
