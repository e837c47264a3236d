"""Asking the person at the screen, and counting tokens: ``/popup`` ``/input`` ``/buttons`` ``/tokens``
``/trimtokens``.

The host asks: the page opens a dialog; where nobody can answer (a replay, ``pear slash`` without a
terminal) a popup is only recorded, ``/input`` gives its default and ``/buttons`` gives nothing, as if the
dialog had been closed.
"""

from __future__ import annotations

import json
from typing import Any

from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, ClosureValue, CommandError


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _popup(call: Call) -> Any:
    answer = call.host.popup(_text(call), ok=js.string(call.arg("okButton", "OK")), cancel=call.arg("cancelButton"))
    if js.is_true(call.arg("result")):
        return "1" if answer else "0"
    return ""


def _input(call: Call) -> Any:
    default = call.arg("default", "")
    answer = call.host.prompt_input(_text(call), js.string(default) if default is not UNDEFINED else "")
    handler = call.arg("onSuccess") if answer is not None else call.arg("onCancel")
    if isinstance(handler, ClosureValue):
        call.run_closure(handler)
    return "" if answer is None else answer


def _buttons(call: Call) -> str:
    raw = call.arg("labels")
    try:
        labels = json.loads(js.string(raw)) if raw is not UNDEFINED else []
    except ValueError:
        labels = []
    if not isinstance(labels, list) or not labels:
        raise CommandError("Invalid labels provided")
    names = [js.string(label.get("text") if isinstance(label, dict) else label) for label in labels]
    chosen = call.host.choose(_text(call), names, multiple=js.is_true(call.arg("multiple")))
    return "" if chosen is None else chosen


def _tokens(call: Call) -> str:
    return str(call.host.count_tokens(_text(call)))


def _trim_tokens(call: Call) -> str:
    text = _text(call)
    limit = js.number(call.arg("limit"))
    if js.is_nan(limit) or limit < 0:
        raise CommandError("Invalid limit provided")
    from_start = js.string(call.arg("direction", "end")) == "start"
    if call.host.count_tokens(text) <= limit:
        return text
    # The longest head (or tail) within the limit: token counts grow with the text, so halve the range.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        piece = text[-middle:] if from_start else text[:middle]
        if call.host.count_tokens(piece) <= limit:
            low = middle
        else:
            high = middle - 1
    return text[len(text) - low :] if from_start else text[:low]


COMMANDS = (
    Command(
        "popup",
        _popup,
        "Shows the text in a dialog; result=true passes on 1 (OK) or 0.",
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
        returns="the label chosen",
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
        "The text cut to limit= tokens (direction=end keeps the start, start keeps the end).",
        named=(
            Arg("limit", types=("number",), required=True),
            Arg("direction", default="end", choices=("start", "end")),
        ),
        unnamed=(Arg("text", required=True),),
        returns="the text",
    ),
)

__all__ = ["COMMANDS"]
