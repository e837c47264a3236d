"""May a card's TavernHelper scripts act here?  The user's answer, kept in the card's ``卡.json``.

SillyTavern's TavernHelper asks once per card ("enable this card's embedded scripts?") and runs
none of them before a yes.  Pear Garden never runs a script's JavaScript; what the answer decides is
whether the card's variables are kept by the built-in MVU (the scripts that load MagVarUpdate).  An
unanswered card keeps them (the built-in MVU is our own code, the answer only turns it off), so a
card imported without a terminal to ask on still plays as made.
"""

from __future__ import annotations

from peargarden.formats import Card
from peargarden.formats.helper_scripts import HelperScript, helper_scripts

from .cards import CardFolder

SCRIPTS_KEY = "scripts_allowed"


def card_helper_scripts(card: Card) -> list[HelperScript]:
    """The card's TavernHelper scripts (both shapes, folders walked)."""
    return helper_scripts(card.data.get("extensions"))


def scripts_allowance(folder: CardFolder) -> bool | None:
    """True / False as the user answered; None when never asked."""
    value = folder.settings().get(SCRIPTS_KEY)
    return value if isinstance(value, bool) else None


def set_scripts_allowance(folder: CardFolder, allowed: bool) -> None:
    settings = folder.settings()
    settings[SCRIPTS_KEY] = allowed
    folder.write_settings(settings)


def scripts_question(card: Card) -> str:
    """The one question a front asks (TavernHelper asks the same when such a card is opened)."""
    names = "、".join(script.name for script in card_helper_scripts(card)[:5])
    return (
        f"卡「{card.name}」带有 TavernHelper 脚本（{names}）。"
        "允许它的变量系统（MVU）在梨园运行吗？脚本自己的代码不会运行。"
    )
