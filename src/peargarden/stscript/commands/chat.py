"""The chat: ``/send`` ``/sendas`` ``/sys`` ``/comment`` (with ``at=``), ``/hide`` ``/unhide``
``/cut`` ``/del`` ``/messages`` ``/setinput`` ``/addswipe``, and generation: ``/gen`` ``/genraw``
``/trigger`` ``/swipe`` ``/regenerate`` ``/continue`` ``/impersonate``.

Each edit goes through the host, which makes it an edit of the chat as the app makes any edit (in a
replay: SillyTavern's chat array).  Ranges are SillyTavern's ``N`` or ``A-B``, refused whole when
they reach outside the chat.
"""

from __future__ import annotations

import math
from typing import Any

from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, CommandError


def string_to_range(text: Any, low: int, high: int) -> tuple[int, int] | None:
    """SillyTavern's ``stringToRange``: ``N`` or ``A-B`` (each read by ``parseInt``) within ``low..high``."""
    text = js.string(text)
    if "-" in text:
        parts = text.split("-")
        start = js.parse_int(parts[0]) if parts[0] else math.nan
        end = js.parse_int(parts[1]) if parts[1] else math.nan
    else:
        start = end = js.parse_int(text)
    if math.isnan(start) or math.isnan(end) or start > end or start < low or end > high:
        return None
    return int(start), int(end)


def insert_position(call: Call) -> int | None:
    """``at=``: an index, or from the end when negative; ``None`` appends."""
    at = js.number(call.arg("at"))
    if math.isnan(at):
        return None
    length = len(call.host.messages())
    if at < 0 or (at == 0 and math.copysign(1, at) < 0):
        at = length + at
    if 0 <= at <= length:
        return int(at)
    return None


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _send(call: Call) -> str:
    text = _text(call)
    if not text:
        return ""
    name = call.arg("name") if "name" in call.named else None
    call.host.post("user", text.strip(), at=insert_position(call), compact=js.is_true(call.arg("compact")), name=name)
    return ""


def _sendas(call: Call) -> str:
    text = _text(call)
    if not text:
        return ""
    given = call.arg("name")
    name = given.strip() if isinstance(given, str) and given else call.host.char_name
    call.host.post(
        "character", text.strip(), at=insert_position(call), compact=js.is_true(call.arg("compact")), name=name
    )
    return ""


def _narrator(kind: str) -> Any:
    def run(call: Call) -> str:
        text = _text(call)
        if not text:
            return ""
        call.host.post(kind, text, at=insert_position(call), compact=js.is_true(call.arg("compact")))
        return ""

    return run


def _hide(hidden: bool) -> Any:
    def run(call: Call) -> str:
        text = _text(call)
        if not text:
            return ""
        bounds = string_to_range(text, 0, len(call.host.messages()) - 1)
        if bounds is None:
            # SillyTavern only writes this to the browser console; the host keeps it as a warning.
            call.host.console_warn(f"Invalid range provided for /{'hide' if hidden else 'unhide'} command: {text}")
            return ""
        call.host.hide(bounds[0], bounds[1], hidden=hidden)
        return ""

    return run


def _cut(call: Call) -> str:
    bounds = string_to_range(_text(call), 0, len(call.host.messages()) - 1)
    if bounds is None:
        call.host.toast("warning", "Must provide a Message ID or a range to cut.")
        return ""
    messages = call.host.messages()
    cut = "".join(f"{js.string(messages[i].get('mes') or '')}\n" for i in range(bounds[0], bounds[1] + 1))
    call.host.remove(list(range(bounds[0], bounds[1] + 1)))
    return cut


def _delete(call: Call) -> str:
    """``/del N``: the last N messages cut (their text passed on); without N SillyTavern only opens its
    delete mode, which a script cannot use."""
    text = _text(call)
    if text and js.is_nan(text):
        call.host.toast("warning", "Must enter a number or nothing.")
        return ""
    if not text:
        return ""
    count = js.number(text)
    length = len(call.host.messages())
    if count < 1:
        return ""
    if count > length:
        call.host.toast("warning", f"Cannot delete more than {length} messages.")
        return ""
    start = length - int(count)
    messages = call.host.messages()
    cut = "".join(f"{js.string(messages[i].get('mes') or '')}\n" for i in range(start, length))
    call.host.remove(list(range(start, length)))
    return cut


def _messages(call: Call) -> str:
    names = not js.is_false(call.arg("names"))
    hidden = js.is_true(call.arg("hidden"))
    role = call.arg("role")
    messages = call.host.messages()
    bounds = string_to_range(call.value, 0, len(messages) - 1)
    if bounds is None:
        call.host.console_warn(f"Invalid range provided for /messages command: {js.string(call.value)}")
        return ""
    lines = []
    for index in range(bounds[0], bounds[1] + 1):
        message = messages[index]
        narrator = (message.get("extra") or {}).get("type") == "narrator"
        if role not in (UNDEFINED, None, ""):
            wanted = {
                "system": narrator and not message.get("is_user"),
                "assistant": not narrator and not message.get("is_user"),
                "user": not narrator and bool(message.get("is_user")),
            }
            if role not in wanted:
                raise CommandError(
                    f"Invalid role provided. Expected one of: system, assistant, user. Got: {js.string(role)}"
                )
            if not wanted[role]:
                continue
        if not hidden and message.get("is_system"):
            continue
        text = js.string(message.get("mes", ""))
        lines.append(f"{message.get('name', '')}: {text}" if names else text)
    return "\n\n".join(lines)


def _setinput(call: Call) -> Any:
    value = call.value
    call.host.set_input(js.string(value) if value else "")
    return value


def _addswipe(call: Call) -> str:
    text = _text(call)
    messages = call.host.messages()
    if not messages:
        call.host.toast("warning", "No messages to add swipes to.")
        return ""
    if not text:
        return ""
    last = messages[-1]
    if last.get("is_user"):
        call.host.toast("warning", "Can't add swipes to user messages.")
        return ""
    if last.get("is_system"):
        call.host.toast("warning", "Can't add swipes to system messages.")
        return ""
    return js.string(call.host.add_swipe(text, switch=js.is_true(call.arg("switch"))))


def _gen(call: Call) -> str:
    answer: str = call.host.generate_quiet(
        _text(call),
        lock=js.is_true(call.arg("lock")),
        name=call.arg("name"),
        length=call.arg("length"),
        as_role=call.arg("as"),
        trim=not js.is_false(call.arg("trim")),
    )
    return answer


def _genraw(call: Call) -> str:
    answer: str = call.host.generate_raw(
        _text(call),
        system=js.string(call.arg("system", "")),
        prefill=js.string(call.arg("prefill", "")),
        as_role=js.string(call.arg("as", "system")),
        length=call.arg("length"),
        instruct=not js.is_false(call.arg("instruct")),
        stop=call.arg("stop"),
        trim=not js.is_false(call.arg("trim")),
    )
    return answer


def _generation(kind: str) -> Any:
    def run(call: Call) -> str:
        call.host.generate(kind, _text(call), wait=js.is_true(call.arg("await")))
        return ""

    return run


_AT = Arg("at", "where to insert (an index; negative counts from the end)", ("number",))
_COMPACT = Arg("compact", types=("boolean",), default="false")
_TEXT = (Arg("text", required=True),)

COMMANDS = (
    Command(
        "send",
        _send,
        "Adds a message as the user (no reply).",
        named=(_COMPACT, _AT, Arg("name", "persona name")),
        unnamed=_TEXT,
    ),
    Command(
        "sendas",
        _sendas,
        "Adds a message as a character (name=).",
        named=(Arg("name", "character name", required=True), _COMPACT, _AT),
        unnamed=_TEXT,
    ),
    Command(
        "sys", _narrator("narrator"), "Adds a narrator message.", aliases=("nar",), named=(_COMPACT, _AT), unnamed=_TEXT
    ),
    Command(
        "comment",
        _narrator("comment"),
        "Adds a note that is shown but never sent to the model.",
        named=(_COMPACT, _AT),
        unnamed=_TEXT,
    ),
    Command(
        "hide",
        _hide(True),
        "Hides messages N or A-B from the model (they stay in the chat).",
        unnamed=(Arg("range", required=True),),
    ),
    Command(
        "unhide", _hide(False), "Shows hidden messages to the model again.", unnamed=(Arg("range", required=True),)
    ),
    Command(
        "cut",
        _cut,
        "Removes messages N or A-B and passes their text on.",
        unnamed=(Arg("range", required=True),),
        returns="the removed text",
    ),
    Command(
        "del",
        _delete,
        "Deletes the last N messages and passes their text on.",
        aliases=("delete",),
        unnamed=(Arg("count", types=("number",)),),
        returns="the deleted text, a line each",
    ),
    Command(
        "messages",
        _messages,
        "The text of messages N or A-B (names=off without names, hidden=on with hidden ones, role= to filter).",
        aliases=("message",),
        named=(
            Arg("names", types=("boolean",), default="on"),
            Arg("hidden", types=("boolean",), default="off"),
            Arg("role", choices=("system", "assistant", "user")),
        ),
        unnamed=(Arg("range", required=True),),
        returns="the messages",
    ),
    Command("setinput", _setinput, "Writes the text into the chat input box.", unnamed=_TEXT),
    Command(
        "addswipe",
        _addswipe,
        "Adds a swipe to the last reply (switch=true shows it).",
        aliases=("swipeadd",),
        named=(Arg("switch", types=("boolean",), default="false"),),
        unnamed=_TEXT,
        returns="the new swipe's index",
    ),
    Command(
        "gen",
        _gen,
        "Asks the model with the chat and this instruction; nothing is added to the chat.",
        named=(
            Arg("lock", types=("boolean",), default="off"),
            Arg("name"),
            Arg("length", types=("number",)),
            Arg("as", default="system", choices=("system", "char")),
            Arg("trim", types=("boolean",), default="on"),
        ),
        unnamed=(Arg("prompt", required=True),),
        returns="the model's answer",
    ),
    Command(
        "genraw",
        _genraw,
        "Asks the model with this prompt only (system=, prefill=, as=system|char); nothing is added to the chat.",
        named=(
            Arg("lock", types=("boolean",), default="off"),
            Arg("instruct", types=("boolean",), default="on"),
            Arg("stop", types=("list",)),
            Arg("as", default="system", choices=("system", "char")),
            Arg("system"),
            Arg("prefill"),
            Arg("length", types=("number",)),
            Arg("trim", types=("boolean",), default="on"),
        ),
        unnamed=(Arg("prompt", required=True),),
        returns="the model's answer",
    ),
    Command(
        "trigger",
        _generation("normal"),
        "Asks for the next reply, as the send button does with an empty box.",
        named=(Arg("await", types=("boolean",), default="false"),),
        unnamed=(Arg("group member"),),
    ),
    Command(
        "regenerate",
        _generation("regenerate"),
        "Regenerates the last reply.",
        named=(Arg("await", types=("boolean",), default="false"),),
    ),
    Command(
        "swipe",
        _generation("swipe"),
        "Asks for a new swipe of the last reply.",
        named=(Arg("await", types=("boolean",), default="false"),),
    ),
    Command(
        "continue",
        _generation("continue"),
        "Continues the last reply.",
        aliases=("cont",),
        named=(Arg("await", types=("boolean",), default="false"),),
        unnamed=(Arg("prompt"),),
    ),
    Command(
        "impersonate",
        _generation("impersonate"),
        "Writes the user's next message into the input box.",
        aliases=("imp",),
        named=(Arg("await", types=("boolean",), default="false"),),
        unnamed=(Arg("prompt"),),
    ),
)

__all__ = ["COMMANDS", "insert_position", "string_to_range"]
