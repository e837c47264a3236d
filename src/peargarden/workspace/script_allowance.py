"""May a card's TavernHelper scripts act here?  The user's answer, kept in the card's ``卡.json``.

SillyTavern's TavernHelper asks once per card ("enable this card's embedded scripts?") and runs
none of them before a yes.  The answer decides whether the card's variables are kept by the built-in
MVU (the scripts that load MagVarUpdate) and whether the chat page runs the card's scripts, each in a
sandboxed frame (``app/play/page_scripts.py``; only after a yes).  An unanswered card keeps its
variables (the built-in MVU is our own code, the answer only turns it off), so a card imported
without a terminal to ask on still plays as made; its scripts wait for the yes.
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
        "允许它的脚本运行吗？变量系统（MVU）由梨园内置运行；其余脚本只在聊天网页的沙箱框里运行，碰不到你的文件。"
    )
