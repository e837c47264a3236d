"""Replaying a recorded TavernHelper case (``../shared/tavernhelper``): the case's card opened in a
new chat on SillyTavern's state, its enabled scripts run, the user's actions performed with the
recorded model replies, and what the script published read back.

Steps, as the recording harness took them: a fresh state from the case's card and worlds and the
common settings and preset, with the global variables the case began with; a new chat with the
greeting; the card's enabled scripts run (the case's allowance to run them is given, as the
recording gave it); the greeting's events; a wait until the script's published object
(``window.parent.__TH_ORACLE[<case>]``) says ``ready`` or ``done``; ``user_actions`` in order
(``send``: a message typed and sent, ``swipe``: a new swipe of the last reply), the n-th request
answered by the n-th of ``fake_model_replies``; a wait until it says ``done`` (at most the virtual
time budget).  The output has ``script_output``, ``state_after`` (``chat``, ``chat_metadata_variables``,
``global_variables``, ``character_tavern_helper``), ``requests`` and ``warnings``.  Pure: the
scripts' side (a channel) and the clock are given.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from peargarden.tavern.replay import CaseData, build_state
from peargarden.tavern.state import TavernState
from peargarden.text.jsvalue import UNDEFINED, json_stringify

from . import card_settings
from .session import Channel, ScriptSession
from .st_beat import first_message_events, hears_greeting, opened, send, swipe
from .st_host import TavernScriptHost

_MESSAGE_KEYS = ("name", "is_user", "is_system", "mes", "swipe_id", "swipes", "variables", "extra")


def plain(value: Any) -> Any:
    """A value as JavaScript's JSON carries it (``undefined`` members dropped)."""
    text = json_stringify(value)
    return None if text is None else json.loads(text)


def chat_view(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chat as the recordings list it: each message's fields that exist, ``extra`` and ``data``."""
    out = []
    for index, message in enumerate(chat):
        view: dict[str, Any] = {"index": index}
        for key in _MESSAGE_KEYS:
            if key in message and message[key] is not UNDEFINED:
                view[key] = message[key]
        view["extra"] = message.get("extra") if isinstance(message.get("extra"), dict) else {}
        view["data"] = message.get("data")
        out.append(plain(view))
    return out


def case_state(case_input: dict[str, Any], overrides: dict[str, Any], preset: dict[str, Any] | None) -> TavernState:
    """SillyTavern 1.18's state for the case: its card and worlds, the common settings and preset,
    the global variables it began with, a new chat with the greeting."""
    settings = {
        "sillytavern": {"version": "1.18.0"},
        "st_settings_overrides": overrides,
        "preset_name": "Oracle",
        "character_file": str(case_input.get("character_file") or ""),
    }
    found = case_input.get("worlds")
    worlds: dict[str, dict[str, Any]] = found if isinstance(found, dict) else {}
    state = build_state(CaseData(settings=settings, card=copy.deepcopy(case_input["card"]), preset=preset,
                                 worlds=copy.deepcopy(worlds)))  # fmt: skip
    if state.chat_metadata.get("variables") == {}:
        del state.chat_metadata["variables"]  # made by the greeting's macro context, never set
    given = case_input.get("global_variables_before")
    globals_before = copy.deepcopy(given) if isinstance(given, dict) else {}
    state.extension_settings.setdefault("variables", {})["global"] = globals_before
    return state


def enabled_scripts(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The card's TavernHelper scripts that run: ``type: script`` and enabled (a folder's scripts
    when the folder is), in the order TavernHelper starts them: by id."""
    extensions = card.setdefault("data", {}).setdefault("extensions", {})
    helper = card_settings.current(extensions)
    out: list[dict[str, Any]] = []

    def walk(items: Any) -> None:
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or item.get("enabled") is not True:
                continue
            if item.get("type") == "folder":
                walk(item.get("scripts"))
            elif item.get("type", "script") == "script" and isinstance(item.get("content"), str):
                out.append(item)

    walk(helper.get("scripts"))
    return sorted(out, key=lambda script: str(script.get("id") or ""))


def replay_script_case(
    case_input: dict[str, Any],
    overrides: dict[str, Any],
    preset: dict[str, Any] | None,
    *,
    channel: Channel,
    clock: Callable[[], datetime],
) -> dict[str, Any]:
    """Run the case; the channel is closed when it returns."""
    state = case_state(case_input, overrides, preset)
    state.clock = clock
    opened(state)
    replies = [str(r) for r in case_input.get("fake_model_replies") or []]

    def reply(number: int) -> str:
        return replies[number - 1] if number <= len(replies) else f"ORACLE_REPLY #{number}"

    host = TavernScriptHost(state, reply=reply)
    session = ScriptSession(channel, host)
    warnings: list[str] = []
    name = str(case_input.get("case") or "")

    def published(key: str) -> bool:
        found = session.read(["__TH_ORACLE", name, key])
        return found is not UNDEFINED and bool(found)

    try:
        early = hears_greeting(state)
        if not early:
            first_message_events(state, session.emit)
        for script in enabled_scripts(state.card):
            session.start(str(script.get("id") or script.get("name")), str(script.get("name") or ""), script["content"])
        if early:
            first_message_events(state, session.emit)
        session.wait(lambda: published("ready") or published("done"))
        for action in case_input.get("user_actions") or []:
            if isinstance(action, dict) and "send" in action:
                send(host, str(action["send"]), session.emit, warnings)
            elif isinstance(action, dict) and action.get("swipe"):
                swipe(host, session.emit, warnings)
            else:
                warnings.append(f"未知的用户操作：{action!r}")
        if not session.wait(lambda: published("done")):
            warnings.append("脚本没有在限定时间内报告 done")
        output = session.read(["__TH_ORACLE", name])
    finally:
        session.close()
    warnings.extend(session.errors)
    warnings.extend(f"{fn} 被调用 {count} 次（不可用）" for fn, count in session.refused.items())
    helper = (state.card.get("data") or {}).get("extensions", {}).get("tavern_helper")
    return {
        "script_output": None if output is UNDEFINED else output,
        "state_after": {
            "chat": chat_view(state.chat),
            "chat_metadata_variables": plain(state.chat_metadata.get("variables")),
            "global_variables": plain(state.extension_settings.get("variables", {}).get("global")),
            "character_tavern_helper": plain(helper),
        },
        "requests": host.requests,
        "warnings": warnings,
    }


__all__ = ["case_state", "chat_view", "enabled_scripts", "plain", "replay_script_case"]
