"""What a script adds to the prompt: ``/inject`` (``/listinjects``, ``/flushinject``) and the Author's
Note (``/note``, ``/note-depth``, ``/note-frequency``, ``/note-position``, ``/note-role``).

An injection is kept with the chat (SillyTavern's ``chat_metadata.script_injects``) and sent at its
position and depth with every later request, until a script removes it (``/inject id=x`` with no
text, or ``/flushinject``).
"""

from __future__ import annotations

import math
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, ClosureValue, CommandError
from .returns import RETURN_TYPES, do_return

POSITIONS = ("before", "after", "chat", "none")
ROLES = ("system", "user", "assistant")


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _inject(call: Call) -> str:
    given = call.arg("id")
    ident = "" if given is UNDEFINED or given is None else js.string(given)
    if not ident:
        # ``Math.random().toString(36).substring(2)``
        ident = js.number_to_radix(call.host.random(), 36)[2:]
    position = js.string(call.arg("position", "after"))
    depth = js.number(call.arg("depth", 4))
    role_given = call.arg("role")
    role = js_trim(role_given.lower()) if isinstance(role_given, str) else "system"
    filter_given = call.arg("filter")
    filter_text: str | None = filter_given.raw_text if isinstance(filter_given, ClosureValue) else None
    if filter_given not in (UNDEFINED, None, "") and not js_trim(filter_text or ""):
        raise CommandError("Failed to parse the filter argument. Make sure it is a valid non-empty closure.")
    call.host.inject(
        ident,
        _text(call),
        position=position if position in POSITIONS else "after",
        depth=4 if math.isnan(depth) else js.as_js_number(depth),
        scan=js.is_true(js.string(call.arg("scan"))),
        role=role if role in ROLES else "system",
        ephemeral=js.is_true(js.string(call.arg("ephemeral", ""))),
        filter=filter_text,
    )
    return ident


# extension_prompt_types by value, for /listinjects' text
_POSITION_NAMES = {-1: "NONE", 0: "IN_PROMPT", 1: "IN_CHAT", 2: "BEFORE_PROMPT"}


def _injects_text(injects: Any) -> str:
    lines = []
    for key, inject in injects.items():
        position = inject.get("position")
        name = _POSITION_NAMES.get(position, "unknown") if isinstance(position, int) else "unknown"
        scan = inject.get("scan")
        role = inject.get("role")
        lines.append(
            f"* **{key}**: <code>{js.string(inject.get('value', UNDEFINED))}</code> ({name}, "
            f"depth: {js.string(inject.get('depth', UNDEFINED))}, "
            f"scan: {js.string(False if scan is None else scan)}, role: {js.string(0 if role is None else role)})"
        )
    return "### Script injections:\n" + ("\n".join(lines) or "No script injections for the current chat")


def _list(call: Call) -> Any:
    return do_return(call, call.arg("return", "popup-html"), call.host.injections(), _injects_text)


def _flush(call: Call) -> str:
    call.host.flush_injections(_text(call) or None)
    return ""


# Author's Note: the value each command shows, and the words /note-position and /note-role take.
NOTE_POSITIONS = {"after": 0, "scenario": 0, "chat": 1, "before_scenario": 2, "before": 2}
NOTE_ROLES = {"system": 0, "user": 1, "assistant": 2}


def _note_text(call: Call) -> Any:
    text = _text(call)
    if text:
        call.host.set_note("prompt", text)
        call.host.toast("success", "Author's Note text updated")
    return call.host.note_metadata().get("note_prompt")


def _note_number(field: str, what: str) -> Any:
    def run(call: Call) -> Any:
        text = _text(call)
        if text:
            value = js.number(text)
            if math.isnan(value):
                call.host.toast("error", "Not a valid number")
                return UNDEFINED
            call.host.set_note(field, js.as_js_number(abs(value)))
            call.host.toast("success", f"Author's Note {what} updated")
        return call.host.note_metadata().get(f"note_{field}")

    return run


def _note_choice(field: str, words: dict[str, int], what: str, *, stored: bool) -> Any:
    def run(call: Call) -> Any:
        text = _text(call)
        if text:
            chosen = words.get(js_trim(text).lower())
            if chosen is None:
                call.host.toast("error", f"Not a valid {what}")
                return UNDEFINED
            # SillyTavern ticks the position's radio button with an event its handler does not
            # listen to, so a position is announced but never stored; a role is stored.
            if stored:
                call.host.set_note(field, chosen)
            call.host.toast("info", f"Author's Note {what} updated")
        current = call.host.note_metadata().get(f"note_{field}")
        return next((word for word, value in words.items() if js.loose_equals(value, current)), UNDEFINED)

    return run


COMMANDS = (
    Command(
        "inject",
        _inject,
        "Adds text to every request at a position (before, after, chat with depth=, none), as role=; "
        "without text removes the injection id= (an id is made up when none is given).",
        named=(
            Arg("id"),
            Arg("position", default="after", choices=POSITIONS),
            Arg("depth", types=("number",), default="4"),
            Arg("scan", types=("boolean",), default="false"),
            Arg("role", default="system", choices=ROLES),
            Arg("ephemeral", types=("boolean",), default="false"),
            Arg("filter", "a closure deciding whether the injection is used", ("closure",)),
        ),
        unnamed=(Arg("text"),),
        returns="the injection's id",
    ),
    Command(
        "listinjects",
        _list,
        "Lists the chat's script injections (return=object gives them as JSON).",
        named=(Arg("return", default="popup-html", choices=RETURN_TYPES), Arg("format")),
        returns="the injections",
    ),
    Command(
        "flushinject",
        _flush,
        "Removes the injection named (all of them when no id is given).",
        aliases=("flushinjects",),
        unnamed=(Arg("id"),),
    ),
    Command(
        "note",
        _note_text,
        "Sets the Author's Note; without text passes it on.",
        unnamed=(Arg("text"),),
        returns="the Author's Note",
    ),
    Command(
        "note-depth",
        _note_number("depth", "depth"),
        "Sets the Author's Note depth.",
        aliases=("depth",),
        unnamed=(Arg("depth", types=("number",)),),
        returns="the depth",
    ),
    Command(
        "note-frequency",
        _note_number("interval", "frequency"),
        "Sets how often the Author's Note is inserted.",
        aliases=("freq", "note-freq"),
        unnamed=(Arg("frequency", types=("number",)),),
        returns="the frequency",
    ),
    Command(
        "note-position",
        _note_choice("position", NOTE_POSITIONS, "position", stored=False),
        "Names the Author's Note position (after, scenario, chat, before_scenario, before).",
        aliases=("pos", "note-pos"),
        unnamed=(Arg("position", choices=tuple(NOTE_POSITIONS)),),
        returns="the position",
    ),
    Command(
        "note-role",
        _note_choice("role", NOTE_ROLES, "role", stored=True),
        "Sets the role the Author's Note is sent as (system, user, assistant).",
        unnamed=(Arg("role", choices=tuple(NOTE_ROLES)),),
        returns="the role",
    ),
)

__all__ = ["COMMANDS", "NOTE_POSITIONS", "NOTE_ROLES", "POSITIONS", "ROLES"]
