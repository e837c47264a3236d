"""Card authoring (work mode): a card's editable slots, and the checks before a card is written back.

Pure: :func:`card_slots` lists the slots of a card's ``data``; :func:`get_at`/:func:`set_at` address
them; :func:`check_script` and :func:`check_regex` find problems without running anything.  The card
project on disk (``创作/``) is :mod:`peargarden.modes.work.project`.
"""

from .slots import FIELD_LABELS, Slot, card_slots, get_at, set_at, slot_id
from .syntax import Problem, check_regex, check_script

__all__ = [
    "FIELD_LABELS",
    "Problem",
    "Slot",
    "card_slots",
    "check_regex",
    "check_script",
    "get_at",
    "set_at",
    "slot_id",
]
