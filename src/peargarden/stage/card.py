"""The card fields the stage uses, and the two macros it substitutes.

The stage needs only a handful of a character card's fields; :func:`card_from_data` reads them from
the ``data`` object of a V2/V3 card (or the top level of a V1 card), so the stage does not depend on
how a card file was stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

__all__ = ["StageCard", "apply_macros", "card_from_data"]


class StageCard(msgspec.Struct, frozen=True):
    name: str
    description: str = ""
    personality: str = ""
    scenario: str = ""
    mes_example: str = ""
    first_mes: str = ""
    system_prompt: str = ""
    post_history_instructions: str = ""


def _text(value: Any) -> str:
    return value.replace("\r\n", "\n") if isinstance(value, str) else ""


def card_from_data(card: Mapping[str, Any]) -> StageCard:
    """Read the stage's fields from a card JSON (V1 top level, or V2/V3 ``data``)."""
    nested = card.get("data")
    data: Mapping[str, Any] = nested if isinstance(nested, Mapping) else card
    return StageCard(
        name=_text(data.get("name")) or _text(card.get("name")),
        description=_text(data.get("description")),
        personality=_text(data.get("personality")),
        scenario=_text(data.get("scenario")),
        mes_example=_text(data.get("mes_example")),
        first_mes=_text(data.get("first_mes")),
        system_prompt=_text(data.get("system_prompt")),
        post_history_instructions=_text(data.get("post_history_instructions")),
    )


def apply_macros(text: str, char: str, user: str) -> str:
    """``{{char}}`` → the card's name, ``{{user}}`` → the user's name (case-insensitive, like ST)."""
    if "{{" not in text:
        return text
    out = []
    index = 0
    lowered = text.lower()
    while True:
        found = lowered.find("{{", index)
        if found < 0:
            out.append(text[index:])
            break
        out.append(text[index:found])
        if lowered.startswith("{{char}}", found):
            out.append(char)
            index = found + len("{{char}}")
        elif lowered.startswith("{{user}}", found):
            out.append(user)
            index = found + len("{{user}}")
        else:
            out.append("{{")
            index = found + 2
    return "".join(out)
