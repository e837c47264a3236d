"""Quick Reply commands: ``/qr-set-create`` ``/qr-set-delete`` ``/qr-set-list`` ``/qr-set-on``
``/qr-set-off`` ``/qr-chat-set-on`` ``/qr-chat-set-off`` ``/qr-create`` ``/qr-update`` ``/qr-delete``
``/qr-list`` ``/qr-get`` ``/qr-arg``, and running a reply by ``Set.Label`` (``/run``, ``/:``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..quickreplies import QuickReplyLibrary, QuickReplySet, reply_json
from ..registry import Arg, Command
from ..runtime import Call, CommandError, Scope, run_script


def _library(call: Call) -> QuickReplyLibrary:
    library: QuickReplyLibrary = call.host.quick_replies()
    return library


def _shown_errors(run: Callable[[Call], Any]) -> Callable[[Call], Any]:
    """SillyTavern's Quick Reply commands catch their errors: an error toast, and nothing passed on."""

    def guarded(call: Call) -> Any:
        try:
            return run(call)
        except CommandError as error:
            call.host.toast("error", str(error))
            return ""

    return guarded


def _no_set(name: Any) -> CommandError:
    return CommandError(f'No quick reply set with name "{js.string(name)}" found.')


def _set(call: Call, name: Any) -> QuickReplySet:
    found = _library(call).get(js.string(name))
    if found is None:
        raise _no_set(name)
    return found


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _given(call: Call, name: str) -> bool:
    value = call.arg(name)
    return value is not UNDEFINED and value is not None


def _set_create(call: Call) -> str:
    name = js.string(call.arg("name")) if _given(call, "name") else _text(call)
    _library(call).create(
        name,
        disableSend=js.is_true(call.arg("nosend")),
        placeBeforeInput=js.is_true(call.arg("before")),
        injectInput=js.is_true(call.arg("inject")),
    )
    call.host.save_quick_reply_set(name)
    return ""


def _set_update(call: Call) -> str:
    name = js.string(call.arg("name")) if _given(call, "name") else _text(call)
    target = _set(call, name)
    # SillyTavern sets each switch (false when not given).
    target.data["disableSend"] = js.is_true(call.arg("nosend"))
    target.data["placeBeforeInput"] = js.is_true(call.arg("before"))
    target.data["injectInput"] = js.is_true(call.arg("inject"))
    call.host.save_quick_reply_set(target.name)
    return ""


def _set_delete(call: Call) -> str:
    name = _text(call)
    library = _library(call)
    if library.sets.pop(name, None) is None:
        raise _no_set(name)
    # SillyTavern leaves the links to a deleted set in place (they lead nowhere).
    call.host.save_quick_reply_set(name, deleted=True)
    return ""


def _set_list(call: Call) -> str:
    library = _library(call)
    which = _text(call) or "all"
    if which == "global":
        names = [str(s.get("set")) for s in library.global_sets]
    elif which == "chat":
        names = [str(s.get("set")) for s in library.chat_sets]
    else:
        names = list(library.sets)
    return js.stringify(names) or "[]"


def _links(where: str, how: str) -> Callable[[Call], str]:
    """``/qr-set-on`` (``add``), ``/qr-set-off`` (``remove``), ``/qr-set`` (``toggle``) and the chat's."""

    def run(call: Call) -> str:
        name = _text(call)
        _set(call, name)
        library = _library(call)
        links = library.global_sets if where == "global" else library.chat_sets
        linked = any(s.get("set") == name for s in links)
        visible = js.is_true(js.string(call.arg("visible", "true")))
        if how == "remove" or (how == "toggle" and linked):
            links[:] = [s for s in links if s.get("set") != name]
        elif not linked:
            links.append({"set": name, "isVisible": visible})
        call.host.save_quick_reply_links(where)
        return ""

    return run


_FLAGS = {
    "hidden": "isHidden",
    "startup": "executeOnStartup",
    "user": "executeOnUser",
    "bot": "executeOnAi",
    "load": "executeOnChatChange",
    "new": "executeOnNewChat",
    "group": "executeOnGroupMemberDraft",
    "generation": "executeBeforeGeneration",
}


def _create(call: Call) -> str:
    set_name = call.arg("set", "")
    target = _library(call).get(js.string(set_name))
    if target is None:
        raise CommandError(f'No quick reply set with named "{js.string(set_name)}" found.')
    fields: dict[str, Any] = {key: js.is_true(call.arg(arg)) for arg, key in _FLAGS.items()}
    if _given(call, "icon"):
        fields["icon"] = js.string(call.arg("icon"))
    if _given(call, "showlabel"):
        fields["showLabel"] = js.is_true(call.arg("showlabel"))
    if _given(call, "title"):
        fields["title"] = js.string(call.arg("title"))
    fields["automationId"] = js.string(call.arg("automationId", ""))
    target.add(js.string(call.arg("label", "")), _text(call), **fields)
    call.host.save_quick_reply_set(target.name)
    return ""


def _which(call: Call, label: Any) -> Any:
    """The reply asked for: ``id=`` (a number) before the label."""
    return js.number(call.arg("id")) if _given(call, "id") else label


def _lookup(call: Call, set_name: Any, which: Any) -> tuple[QuickReplySet, dict[str, Any]] | None:
    """``getQrByLabel``: a whole number finds by id, anything else by label."""
    target = _library(call).get(js.string(set_name))
    if target is None:
        return None
    if isinstance(which, float) and not math.isnan(which) and which.is_integer():
        found = target.find_id(int(which))
    else:
        found = target.find(js.string(which))
    return (target, found) if found is not None else None


def _must_find(call: Call, set_name: Any, which: Any) -> tuple[QuickReplySet, dict[str, Any]]:
    found = _lookup(call, set_name, which)
    if found is None:
        shown = js.string(js.as_js_number(which) if isinstance(which, float) else which)
        raise CommandError(f'No quick reply with label "{shown}" in set "{js.string(set_name)}" found.')
    return found


def _update(call: Call) -> str:
    target, reply = _must_find(call, call.arg("set", ""), _which(call, call.arg("label", "")))
    if _given(call, "icon"):
        reply["icon"] = js.string(call.arg("icon"))
    if _given(call, "showlabel"):
        reply["showLabel"] = js.is_true(call.arg("showlabel"))
    if _given(call, "newlabel"):
        reply["label"] = js.string(call.arg("newlabel"))
    message = _text(call)
    if js_trim(message):  # a blank message leaves the reply's message as it is
        reply["message"] = message
    if _given(call, "title"):
        reply["title"] = js.string(call.arg("title"))
    for arg, key in _FLAGS.items():
        if _given(call, arg):
            reply[key] = js.is_true(call.arg(arg))
    reply["automationId"] = js.string(call.arg("automationId", ""))
    call.host.save_quick_reply_set(target.name)
    return ""


def _delete(call: Call) -> str:
    label = call.arg("label") if _given(call, "label") else _text(call)
    target, reply = _must_find(call, call.arg("set"), _which(call, label))
    target.remove(reply)
    call.host.save_quick_reply_set(target.name)
    return ""


def _list(call: Call) -> str:
    target = _library(call).get(_text(call))
    if target is None:
        # SillyTavern names the page's window.name here instead of the set: empty.
        raise CommandError('No quick reply set with name "" found.')
    return js.stringify([r.get("label", "") for r in target.replies]) or "[]"


def _get(call: Call) -> str:
    if not js.truthy(call.arg("id")) and not js.truthy(call.arg("label")):
        raise CommandError("Please provide a valid id or label.")
    found = _lookup(call, call.arg("set"), _which(call, call.arg("label")))
    return js.stringify(reply_json(found[1])) or "" if found is not None else ""


def _arg(call: Call) -> str:
    value = call.value
    parts = value if isinstance(value, list) else [value]
    if not parts or parts[0] in ("", UNDEFINED):
        raise CommandError("Cannot read properties of undefined (reading 'includes')")
    name = js.string(parts[0])
    key = f"arg::{name}"
    default = parts[1] if len(parts) > 1 else ""
    # setMacro(key, value, overwrite = key has "*"): without overwrite a key set anywhere up the
    # scopes (an argument /run passed) wins.
    if "*" in name or not any(k == key for k, _ in call.scope.macro_list()):
        call.scope.macros[key] = default
    return ""


def run_quick_reply(call: Call, name: str) -> Any:
    """``/run name``: the reply found as :meth:`QuickReplyLibrary.find` finds it.  Its text, when
    it starts with ``/`` (and the set sends), runs as a script with ``/run``'s named arguments as
    ``{{arg::name}}`` — a parser error in it is a toast and an empty result; other text goes to the
    input box and is sent unless the set says not to."""
    found = _library(call).find(name)
    if found is None:
        raise CommandError(f'No Quick Reply found for "{name}".')
    owner, reply = found
    message = js.string(reply.get("message", ""))
    if not message:
        return ""
    scope = Scope()
    for key, value in call.named.items():
        if not key.startswith("_") and key != "isAutoExecute":
            scope.macros[f"arg::{key}"] = value
    scope.macros["arg::*"] = ""
    text = f"{message} "
    sends = not owner.data.get("disableSend")
    if text.startswith("/") and sends:
        outcome = run_script(call.interpreter, text, handle_parser_errors=True, scope=scope)
        if outcome.error is not None:
            raise CommandError(outcome.error.message)
        return outcome.result.pipe if outcome.result is not None else ""
    call.host.set_input(call.host.expand(text, {}))
    if sends:
        call.host.send_input()
    return ""


_SWITCHES = (
    Arg("title"),
    Arg("icon"),
    Arg("showlabel", types=("boolean",)),
    Arg("hidden", types=("boolean",)),
    Arg("startup", types=("boolean",)),
    Arg("user", types=("boolean",)),
    Arg("bot", types=("boolean",)),
    Arg("load", types=("boolean",)),
    Arg("new", types=("boolean",)),
    Arg("group", types=("boolean",)),
    Arg("generation", "run before each generation", ("boolean",)),
    Arg("automationId"),
)
_WHICH = (Arg("set", required=True), Arg("label"), Arg("id", types=("number",)))
_SET_SWITCHES = (
    Arg("nosend", types=("boolean",)),
    Arg("before", types=("boolean",)),
    Arg("inject", types=("boolean",)),
    Arg("name"),
)
_VISIBLE = (Arg("visible", types=("boolean",), default="true"),)
_NAME = (Arg("name", required=True),)


def _command(name: str, run: Callable[[Call], Any], help: str, **rest: Any) -> Command:
    return Command(name, _shown_errors(run), help, **rest)


COMMANDS = (
    _command(
        "qr-set-create",
        _set_create,
        "Creates a Quick Reply set (an existing one of that name is replaced by an empty one).",
        aliases=("qr-presetadd",),
        named=_SET_SWITCHES,
        unnamed=_NAME,
    ),
    _command(
        "qr-set-update",
        _set_update,
        "Sets a Quick Reply set's switches (nosend, before, inject; false when not given).",
        aliases=("qr-presetupdate",),
        named=_SET_SWITCHES,
        unnamed=_NAME,
    ),
    _command("qr-set-delete", _set_delete, "Deletes a Quick Reply set.", aliases=("qr-presetdelete",), unnamed=_NAME),
    _command(
        "qr-set-list",
        _set_list,
        "The names of the sets (all, global or chat).",
        unnamed=(Arg("which", default="all", choices=("all", "global", "chat")),),
        returns="the names as JSON",
    ),
    _command(
        "qr-set",
        _links("global", "toggle"),
        "Switches a set on for every chat, or off when it is on.",
        named=_VISIBLE,
        unnamed=_NAME,
    ),
    _command("qr-set-on", _links("global", "add"), "Switches a set on for every chat.", named=_VISIBLE, unnamed=_NAME),
    _command("qr-set-off", _links("global", "remove"), "Switches a set off for every chat.", unnamed=_NAME),
    _command(
        "qr-chat-set",
        _links("chat", "toggle"),
        "Switches a set on for this chat, or off when it is on.",
        named=_VISIBLE,
        unnamed=_NAME,
    ),
    _command(
        "qr-chat-set-on", _links("chat", "add"), "Switches a set on for this chat.", named=_VISIBLE, unnamed=_NAME
    ),
    _command("qr-chat-set-off", _links("chat", "remove"), "Switches a set off for this chat.", unnamed=_NAME),
    _command(
        "qr-create",
        _create,
        "Adds a Quick Reply to a set.",
        named=(Arg("set", required=True), Arg("label", required=True), *_SWITCHES),
        unnamed=(Arg("message", required=True),),
    ),
    _command(
        "qr-update",
        _update,
        "Changes a Quick Reply (a blank message keeps the old one).",
        named=(*_WHICH, Arg("newlabel"), *_SWITCHES),
        unnamed=(Arg("message"),),
    ),
    _command(
        "qr-delete", _delete, "Deletes a Quick Reply (label= or the text).", named=_WHICH, unnamed=(Arg("label"),)
    ),
    _command(
        "qr-list",
        _list,
        "The labels of a set's replies.",
        unnamed=(Arg("set", required=True),),
        returns="the labels as JSON",
    ),
    _command("qr-get", _get, "A Quick Reply's fields as JSON.", named=_WHICH, returns="the reply as JSON"),
    Command(
        "qr-arg",
        _arg,
        "Sets a default for {{arg::name}} in this Quick Reply (an argument /run passed wins).",
        unnamed=(Arg("name", required=True), Arg("value")),
        split=True,
        split_count=2,
    ),
)

__all__ = ["COMMANDS", "run_quick_reply"]
