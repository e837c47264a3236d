"""The messages SillyTavern adds to its chat: a new chat's greeting, what a typed send stores, and a
received reply.

Shared by the replays (``replay``, ``group_replay``), STscript's host (``slash_host``) and the tavern
mode's pending user message.
"""

from __future__ import annotations

import re
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.text.regex_scripts import Placement

from .assemble import Generation
from .state import TavernState

_BIAS = re.compile(r"""\{\{bias\s+(?:"([^"]*)"|'([^']*)')\s*\}\}""")


def message_bias(text: str) -> str:
    """SillyTavern's ``extractMessageBias``: the ``{{bias "…"}}`` parts, or ``""``."""
    parts = [m.group(1) if m.group(1) is not None else m.group(2) for m in _BIAS.finditer(text)]
    return " " + " ".join(parts) if parts else ""


def remove_macros(text: str) -> str:
    """ST's ``removeMacros``: every ``{{…}}`` dropped, then trimmed."""
    return js_trim(re.sub(r"\{\{[\s\S]*?\}\}", "", text))


def user_message(state: TavernState, text: str, *, bias_only_as_system: bool = True) -> dict[str, Any]:
    """What ``Generate`` adds for typed text: ``sendMessageAsUser``, or for text that is only a
    ``{{bias "…"}}`` a hidden generic system message carrying the bias ("Start Reply With").
    A group round that nobody answers posts even such text as a user message
    (``bias_only_as_system=False``)."""
    bias = message_bias(text)
    if bias and bias_only_as_system and not remove_macros(text):
        return {
            "name": "SillyTavern System",
            "force_avatar": "img/five.png",
            "is_user": False,
            "is_system": True,
            "mes": " ",
            "extra": {"bias": bias, "type": "generic"},
        }
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    text = gen.regexed(text, Placement.USER_INPUT)
    message: dict[str, Any] = {
        "name": state.user_name,
        "is_user": True,
        "is_system": False,
        "mes": gen.sub(text),
        "extra": {"isSmallSys": False},
    }
    personas = state.power_user.get("personas")
    if isinstance(personas, dict) and state.user_avatar in personas:
        message["force_avatar"] = f"User Avatars/{state.user_avatar}"
    if bias:
        message["extra"]["bias"] = bias
        message["mes"] = remove_macros(message["mes"])
    return message


def assistant_message(state: TavernState, text: str) -> dict[str, Any]:
    """A received reply: AI-output regex scripts run on it before it is stored (as in ST)."""
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    text = gen.regexed(text.strip() if state.power_user.get("trim_spaces", True) else text, Placement.AI_OUTPUT)
    return {
        "name": state.char_name,
        "is_user": False,
        "is_system": False,
        "mes": text,
        "extra": {},
        "swipe_id": 0,
        "swipes": [text],
    }


def add_swipe(message: dict[str, Any], text: str) -> None:
    """A new swipe on *message*, shown: what a swipe's reply does to the chat."""
    message.setdefault("swipes", [message.get("mes", "")]).append(text)
    message["swipe_id"] = len(message["swipes"]) - 1
    message["mes"] = text


__all__ = ["add_swipe", "assistant_message", "message_bias", "remove_macros", "user_message"]


def start_new_chat(state: TavernState) -> None:
    """Opening a character without a chat: ``getFirstMessage`` (raw greeting, AI-output regex).

    Macros are not expanded here; every generation re-substitutes the first message in place.
    """
    gen = Generation(state, "normal", dry_run=True)
    _, gen.card_fields = gen.card_macro_fields()
    data = state.card_data
    first_raw = state.card.get("first_mes")
    if not isinstance(first_raw, str):
        first_raw = data.get("first_mes")
    first = first_raw if isinstance(first_raw, str) else ""
    message: dict[str, Any] = {
        "name": state.char_name,
        "is_user": False,
        "is_system": False,
        "mes": gen.regexed(first, Placement.AI_OUTPUT),
        "extra": {},
    }
    alternates = data.get("alternate_greetings")
    if isinstance(alternates, list) and alternates:
        swipes = [message["mes"], *(gen.regexed(str(g), Placement.AI_OUTPUT) for g in alternates)]
        if not message["mes"]:
            swipes.pop(0)
            message["mes"] = swipes[0]
        message.update({"swipe_id": 0, "swipes": swipes, "swipe_info": []})
    if message["mes"]:
        state.chat.append(message)
