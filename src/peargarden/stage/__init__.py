"""The stage: the agent way to play a card (pure: values in, values out).

The system prompt is built from layered prompt files (:mod:`.system`), each ``#`` heading in them is
a switchable entry (:mod:`.entries`); lore arrives per beat as titles plus an index in the last user
message (:mod:`.injection`, :mod:`.messages`); :mod:`.assemble` puts one beat together.  The beat's
prose lives on a draft sheet (:mod:`.draft`); forks go to the user (:mod:`.ask`).  Every part of a
request is held to the request's token budget (:mod:`.part_budget`): one larger is left out, said.
"""

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
