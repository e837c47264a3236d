"""The stage: the agent way to play a card (pure: values in, values out).

The system prompt is built from layered prompt files (:mod:`.system`), each ``#`` heading in them is
a switchable entry (:mod:`.entries`); lore arrives per beat as titles plus an index in the last user
message (:mod:`.injection`, :mod:`.messages`); :mod:`.assemble` puts one beat together.  The beat's
prose lives on a draft sheet (:mod:`.draft`); forks go to the user (:mod:`.ask`).  Every part of a
request is held to the request's token budget (:mod:`.part_budget`): one larger is left out, said.

The names below are each loaded from their module on first use (PEP 562, as the ``app`` faces do):
what reads a finished stage beat back (:mod:`.history`: a tavern chat, ``pear tavern assemble``)
never loads the beat's assembly, its macros, its lore scanner and ``ahocorasick`` (16 modules).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .assemble import LoreCorpus, StageRequest, StageSettings, assemble_beat, scan_texts
    from .card import StageCard, apply_macros, card_from_data
    from .language import card_language
    from .macros import Macros, stage_macros
    from .messages import Turn
    from .system import PromptFiles, build_system_prompt

__all__ = [
    "LoreCorpus",
    "Macros",
    "PromptFiles",
    "StageCard",
    "StageRequest",
    "StageSettings",
    "Turn",
    "apply_macros",
    "assemble_beat",
    "build_system_prompt",
    "card_from_data",
    "card_language",
    "scan_texts",
    "stage_macros",
]

# Each name → the module that defines it (tests/kit/imports.py reads this table for the import rules).
_LAZY = {
    "LoreCorpus": ".assemble",
    "StageRequest": ".assemble",
    "StageSettings": ".assemble",
    "assemble_beat": ".assemble",
    "scan_texts": ".assemble",
    "StageCard": ".card",
    "apply_macros": ".card",
    "card_from_data": ".card",
    "card_language": ".language",
    "Macros": ".macros",
    "stage_macros": ".macros",
    "Turn": ".messages",
    "PromptFiles": ".system",
    "build_system_prompt": ".system",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # the next use is a plain attribute
    return value
