"""Asking the person at the screen, and counting tokens: ``/popup`` ``/input`` ``/buttons`` ``/tokens``
``/trimtokens``.

The host asks: the page opens a dialog; where nobody can answer (a replay, ``pear slash`` without a
terminal) a popup is only recorded, ``/input`` gives its default and ``/buttons`` gives nothing, as if the
dialog had been closed.
"""

from __future__ import annotations

import json
import math
from typing import Any

from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, ClosureValue, CommandError
from .variables import resolve_variable


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _popup(call: Call) -> Any:
    ok = call.arg("okButton")
    cancel = call.arg("cancelButton")
    answer = call.host.popup(
        _text(call),
        ok=ok if isinstance(ok, str) else "OK",
        cancel=cancel if isinstance(cancel, str) else None,
    )
    if js.is_true(call.arg("result")):
        return "1" if answer else "0"
    return _text(call)  # SillyTavern passes the popup's text on


def _input(call: Call) -> Any:
    default = call.arg("default", "")
    for name in ("onSuccess", "onCancel"):
        given = call.arg(name)
        if given is not UNDEFINED and not isinstance(given, ClosureValue):
            raise CommandError(f"argument '{name}' must be a closure for command /input")
    answer = call.host.prompt_input(_text(call), default if isinstance(default, str) else "")
    handler = call.arg("onSuccess") if answer is not None else call.arg("onCancel")
    if isinstance(handler, ClosureValue):
        call.run_closure(handler)
    return "" if answer is None else answer


def _buttons(call: Call) -> str:
    """A bad ``labels=`` (not JSON, not a non-empty list, an entry without text) gives nothing,
    as SillyTavern only warns in the console."""
    raw = resolve_variable(call, call.arg("labels"))
    try:
        labels = json.loads(js.string(raw))
    except ValueError:
        labels = None
    entries = [{"text": label} if isinstance(label, str) else label for label in labels or []]
    usable = isinstance(labels, list) and bool(labels)
    if not usable or not all(isinstance(e, dict) and isinstance(e.get("text"), str) and e["text"] for e in entries):
        call.host.console_warn("Invalid labels provided for /buttons command")
        return ""
    names = [str(entry["text"]) for entry in entries]
    multiple = js.is_true(call.arg("multiple"))
    chosen = call.host.choose(_text(call), names, multiple=multiple)
    if multiple:
        return js.stringify([] if chosen is None else chosen if isinstance(chosen, list) else [chosen]) or "[]"
    return "" if chosen is None else js.string(chosen)


def _tokens(call: Call) -> str:
    return str(call.host.count_tokens(_text(call)))


def _trim_tokens(call: Call) -> str:
    """``direction=end`` (the default) keeps the last ``limit`` tokens, ``start`` the first; a limit
    that is not a number changes nothing, one of 0 or less leaves nothing."""
    text = _text(call)
    if not text:
        return ""
    limit = js.number(resolve_variable(call, call.arg("limit")))
    if math.isnan(limit):
        call.host.console_warn(f"Invalid limit provided for /trimtokens command: {js.string(limit)}")
        return text
    if limit <= 0:
        return ""
    keep_start = js.string(call.arg("direction", "end")) == "start"
    if call.host.count_tokens(text) <= limit:
        return text
    # The longest head (or tail) within the limit: token counts grow with the text, so halve the range.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        piece = text[:middle] if keep_start else text[-middle:]
        if call.host.count_tokens(piece) <= limit:
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return ""
    return text[:low] if keep_start else text[-low:]


COMMANDS = (
    Command(
        "popup",
        _popup,
        "Shows the text in a dialog and passes the text on; result=true passes on 1 (OK) or 0 instead.",
        named=(
            Arg("large", types=("boolean",)),
            Arg("wide", types=("boolean",)),
            Arg("okButton", default="OK"),
            Arg("cancelButton"),
            Arg("result", types=("boolean",), default="false"),
        ),
        unnamed=(Arg("text", required=True),),
    ),
    Command(
        "input",
        _input,
        "Asks for a line of text (default= when nobody answers).",
        aliases=("prompt",),
        named=(
            Arg("default"),
            Arg("large", types=("boolean",)),
            Arg("wide", types=("boolean",)),
            Arg("okButton"),
            Arg("rows", types=("number",)),
            Arg("onSuccess", types=("closure",)),
            Arg("onCancel", types=("closure",)),
        ),
        unnamed=(Arg("prompt"),),
        returns="what was typed",
    ),
    Command(
        "buttons",
        _buttons,
        'Asks to choose one of labels=["…", …] and passes the label on.',
        named=(Arg("labels", types=("list",), required=True), Arg("multiple", types=("boolean",))),
        unnamed=(Arg("text", required=True),),
        returns="the label chosen (multiple=true: the labels as JSON)",
    ),
    Command(
        "tokens",
        _tokens,
        "The number of tokens in the text.",
        unnamed=(Arg("text", required=True),),
        returns="the count",
    ),
    Command(
        "trimtokens",
        _trim_tokens,
        "The text cut to limit= tokens (direction=end keeps the last ones, start the first ones).",
        named=(
            Arg("limit", types=("number",), required=True),
            Arg("direction", default="end", choices=("start", "end")),
        ),
        unnamed=(Arg("text", required=True),),
        returns="the text",
    ),
)

__all__ = ["COMMANDS"]
