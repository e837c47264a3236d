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
from urllib.parse import quote

from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, CommandError, GenerationError
from .returns import RETURN_TYPES, do_return
from .strings import trim_to_end_sentence
from .variables import resolve_variable


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


def _returned(call: Call, message: dict[str, Any] | None) -> str:
    """``return=`` of the posting commands (default ``none``): the message's text or its JSON."""
    if message is None:
        return ""
    return do_return(call, call.arg("return", "none"), message, lambda m: js.string(m.get("mes", "")))


def _send(call: Call) -> str:
    # No empty-text guard, as in SillyTavern: an empty message is posted too.
    name = js.string(call.arg("name")) if "name" in call.named else None
    message = call.host.post(
        "user", _text(call).strip(), at=insert_position(call), compact=js.is_true(call.arg("compact")), name=name
    )
    return _returned(call, message)


def thumbnail(avatar: str) -> str:
    """``getThumbnailUrl('avatar', file)``."""
    return f"/thumbnail?type=avatar&file={quote(avatar, safe=_URI_SAFE)}"


_URI_SAFE = "-_.!~*'()"  # what encodeURIComponent leaves alone
DEFAULT_AVATAR = "img/ai4.png"


def _sendas(call: Call) -> str:
    host = call.host
    given = call.arg("name")
    name = js_trim(given) if isinstance(given, str) else ""
    if not name:
        host.nameless_sendas_warning()
        name = host.char_name
    character = host.find_character(name)
    avatar_name = call.arg("avatar")
    avatar_character = host.find_character(js.string(avatar_name)) if avatar_name else character
    if avatar_name and avatar_character is None:
        host.toast("warning", f"Character for avatar {js.string(avatar_name)} not found")
        return ""
    # getNameAndAvatarForMessage: the open character needs no forced avatar; another known one
    # shows its own; an unknown name gets the default.
    force_avatar: str | None = None
    original: str | None = None
    if avatar_character is not None and avatar_character.get("avatar") == host.current_avatar:
        pass
    elif avatar_character is not None and avatar_character.get("avatar") != "none":
        original = js.string(avatar_character.get("avatar"))
        force_avatar = thumbnail(original)
    else:
        force_avatar = original = DEFAULT_AVATAR
    speaker = js.string(character.get("name")) if character is not None and character.get("name") else name
    message = host.post(
        "character",
        _text(call).strip(),
        at=insert_position(call),
        compact=js.is_true(call.arg("compact")),
        name=speaker,
        avatar=(force_avatar, original),
    )
    return _returned(call, message)


def _narrator(kind: str) -> Any:
    def run(call: Call) -> str:
        name = js.string(call.arg("name")) if kind == "narrator" and "name" in call.named else None
        message = call.host.post(
            kind, _text(call), at=insert_position(call), compact=js.is_true(call.arg("compact")), name=name
        )
        return _returned(call, message)

    return run


def _hide(hidden: bool) -> Any:
    def run(call: Call) -> str:
        text = _text(call)
        last = len(call.host.messages()) - 1
        bounds = string_to_range(text, 0, last) if text else (last, last)
        if bounds is None:
            # SillyTavern only writes this to the browser console; the host keeps it as a warning.
            call.host.console_warn(f"Invalid range provided for /{'hide' if hidden else 'unhide'} command: {text}")
            return ""
        wanted = js_trim(js.string(call.arg("name", "")))
        messages = call.host.messages()
        chosen = [
            index
            for index in range(bounds[0], bounds[1] + 1)
            if 0 <= index < len(messages) and (not wanted or messages[index].get("name") == wanted)
        ]
        if chosen:
            call.host.hide_messages(chosen, hidden=hidden)
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


def _length(call: Call) -> int:
    """``Number(resolveVariable(length) ?? 0) || 0``: a positive count overrides the reply length."""
    value = resolve_variable(call, call.arg("length"))
    number = js.number(0 if value is UNDEFINED or value is None else value)
    return 0 if math.isnan(number) else int(number) if number.is_integer() else math.floor(number)


def _stop(call: Call) -> list[str]:
    """``stop=["…"]`` (a JSON list, or a variable holding one): stop strings for this generation."""
    value = resolve_variable(call, call.arg("stop"))
    if not isinstance(value, str) or not value:
        return []
    try:
        parsed = js.json_parse(value)
    except js.JsonError:
        return []
    out: list[str] = []
    for item in parsed if isinstance(parsed, list) else []:
        text = js.string(item)
        if text not in out:
            out.append(text)
    return out


def _generated(call: Call, ask: Any) -> str:
    """A generation as SillyTavern runs one from a command: the input box cleared first, a failure an
    "API Error" toast and an empty result."""
    call.host.set_input("")
    try:
        answer: str = ask()
    except GenerationError as error:
        call.host.toast("error", str(error), "API Error")
        return ""
    return answer


def _gen(call: Call) -> str:
    trim = js.is_true(js.string(call.arg("trim", "")))

    def ask() -> str:
        answer: str = call.host.generate_quiet(
            _text(call),
            lock=js.is_true(call.arg("lock")),
            name=call.arg("name"),
            length=_length(call),
            as_role=call.arg("as"),
            stop=_stop(call),
        )
        return trim_to_end_sentence(answer) if trim else answer

    return _generated(call, ask)


def _genraw(call: Call) -> str:
    prompt = call.value
    if prompt in ("", None, UNDEFINED):
        return ""  # SillyTavern only warns in the console; nothing is sent

    def text_of(name: str) -> str:
        value = resolve_variable(call, call.arg(name))
        return js.string(value) if js.truthy(value) else ""

    def ask() -> str:
        answer: str = call.host.generate_raw(
            _text(call),
            system=text_of("system"),
            prefill=text_of("prefill"),
            as_role=js.string(call.arg("as", "system")) or "system",
            length=_length(call),
            instruct=not js.is_false(call.arg("instruct")),
            stop=_stop(call),
            trim=not js.is_false(call.arg("trim")),
        )
        return answer

    return _generated(call, ask)


def _generation(kind: str) -> Any:
    def run(call: Call) -> str:
        call.host.generate(kind, _text(call), wait=js.is_true(call.arg("await")))
        return ""

    return run


_AT = Arg("at", "where to insert (an index; negative counts from the end)", ("number",))
_COMPACT = Arg("compact", types=("boolean",), default="false")
_TEXT = (Arg("text", required=True),)
RETURN = Arg("return", "how to give the message back", default="none", choices=RETURN_TYPES)
# The quotes around the text are kept unless raw=false (SillyTavern's rawQuotes).
RAW = Arg("raw", "false: take the quotes off a quoted text", ("boolean",), default="true")
_POSTED = "the message's text or JSON when return= asks for it"

COMMANDS = (
    Command(
        "send",
        _send,
        "Adds a message as the user (no reply).",
        named=(_COMPACT, _AT, Arg("name", "persona name"), RETURN, RAW),
        unnamed=_TEXT,
        raw_quotes=True,
        returns=_POSTED,
    ),
    Command(
        "sendas",
        _sendas,
        "Adds a message as a character (name=, matched ignoring case and accents; avatar= borrows another's).",
        named=(
            Arg("name", "character name", required=True),
            Arg("avatar", "the character whose avatar to show"),
            _COMPACT,
            _AT,
            RETURN,
            RAW,
        ),
        unnamed=_TEXT,
        raw_quotes=True,
        returns=_POSTED,
    ),
    Command(
        "sys",
        _narrator("narrator"),
        "Adds a narrator message (name= overrides the narrator's name).",
        aliases=("nar",),
        named=(_COMPACT, _AT, Arg("name", "narrator name"), RETURN, RAW),
        unnamed=_TEXT,
        raw_quotes=True,
        returns=_POSTED,
    ),
    Command(
        "comment",
        _narrator("comment"),
        "Adds a note that is shown but never sent to the model.",
        named=(_COMPACT, _AT, RETURN, RAW),
        unnamed=_TEXT,
        raw_quotes=True,
        returns=_POSTED,
    ),
    Command(
        "hide",
        _hide(True),
        "Hides messages N or A-B (the last one when none is given) from the model; name= only those of that name.",
        named=(Arg("name", "only messages of this name"),),
        unnamed=(Arg("range"),),
    ),
    Command(
        "unhide",
        _hide(False),
        "Shows hidden messages to the model again (the last one when none is given); name= only those of that name.",
        named=(Arg("name", "only messages of this name"),),
        unnamed=(Arg("range"),),
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
        aliases=("delete", "delmode"),
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
            Arg("trim", "cut the answer after its last full sentence", ("boolean",), default="false"),
            Arg("stop", "stop strings (a JSON list)", ("list",)),
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
            Arg("trim", "take the character's name off the answer", ("boolean",), default="on"),
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
