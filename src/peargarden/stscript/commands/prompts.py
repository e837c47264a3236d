"""What a script adds to the prompt: ``/inject`` (``/listinjects``, ``/flushinject``) and the Author's
Note (``/note``, ``/depth``, ``/freq``, ``/pos``).

An injection is kept with the chat (SillyTavern's ``chat_metadata.script_injects``) and sent at its
position and depth with every later request, until a script removes it (``/inject id=x`` with no
text, or ``/flushinject``).
"""

from __future__ import annotations

import math
from typing import Any

from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call

POSITIONS = ("before", "after", "chat", "none")
ROLES = ("system", "user", "assistant")


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _inject(call: Call) -> str:
    ident = call.arg("id")
    if not ident or ident is UNDEFINED:
        call.host.toast("warning", "No ID provided for /inject command")
        return ""
    position = js.string(call.arg("position", "after"))
    depth = js.number(call.arg("depth", 4))
    role = js.string(call.arg("role", "system")).strip().lower()
    call.host.inject(
        js.string(ident),
        _text(call),
        position=position if position in POSITIONS else "after",
        depth=4 if math.isnan(depth) else js.as_js_number(depth),
        scan=js.is_true(call.arg("scan")),
        role=role if role in ROLES else "system",
        ephemeral=js.is_true(call.arg("ephemeral")),
    )
    return ""


def _list(call: Call) -> Any:
    injects = call.host.injections()
    return call.host.deliver(
        js.string(call.arg("return", "popup-html")),
        injects,
        lambda: "\n".join(f"{key}: {js.string(value.get('value', ''))}" for key, value in injects.items())
        or "No script injections for the current chat",
    )


def _flush(call: Call) -> str:
    call.host.flush_injections(_text(call) or None)
    return ""


def _note_field(field: str) -> Any:
    def run(call: Call) -> str:
        call.host.author_note(field, _text(call))
        return ""

    return run


COMMANDS = (
    Command(
        "inject",
        _inject,
        "Adds text to every request at a position (before, after, chat with depth=, none), as role=; "
        "without text removes the injection id=.",
        named=(
            Arg("id", required=True),
            Arg("position", default="after", choices=POSITIONS),
            Arg("depth", types=("number",), default="4"),
            Arg("scan", types=("boolean",), default="false"),
            Arg("role", default="system", choices=ROLES),
            Arg("ephemeral", types=("boolean",), default="false"),
        ),
        unnamed=(Arg("text"),),
    ),
    Command(
        "listinjects",
        _list,
        "Lists the chat's script injections (return=object gives them as JSON).",
        named=(Arg("return", default="popup-html"), Arg("format")),
        returns="the injections",
    ),
    Command(
        "flushinject",
        _flush,
        "Removes the injection named (all of them when no id is given).",
        aliases=("flushinjects",),
        unnamed=(Arg("id"),),
    ),
    Command("note", _note_field("prompt"), "Sets the Author's Note.", unnamed=(Arg("text"),)),
    Command("depth", _note_field("depth"), "Sets the Author's Note depth.", unnamed=(Arg("depth", types=("number",)),)),
    Command(
        "freq",
        _note_field("interval"),
        "Sets how often the Author's Note is inserted.",
        aliases=("interval",),
        unnamed=(Arg("interval", types=("number",)),),
    ),
    Command(
        "pos",
        _note_field("position"),
        "Sets the Author's Note position (chat, scenario, …).",
        aliases=("position",),
        unnamed=(Arg("position"),),
    ),
)

__all__ = ["COMMANDS", "POSITIONS", "ROLES"]
