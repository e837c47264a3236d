"""Quick Reply commands: ``/qr-set-create`` ``/qr-set-delete`` ``/qr-set-list`` ``/qr-set-on``
``/qr-set-off`` ``/qr-chat-set-on`` ``/qr-chat-set-off`` ``/qr-create`` ``/qr-update`` ``/qr-delete``
``/qr-list`` ``/qr-get`` ``/qr-arg``, and running a reply by ``Set.Label`` (``/run``, ``/:``)."""

from __future__ import annotations

from typing import Any

from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..quickreplies import QuickReplyLibrary, QuickReplySet
from ..registry import Arg, Command
from ..runtime import Call, CommandError, Scope


def _library(call: Call) -> QuickReplyLibrary:
    library: QuickReplyLibrary = call.host.quick_replies()
    return library


def _set(call: Call, name: Any) -> QuickReplySet:
    found = _library(call).get(js.string(name))
    if found is None:
        raise CommandError(f'No such quick reply set: "{js.string(name)}"')
    return found


def _text(call: Call) -> str:
    value = call.value
    return "" if value in (None, UNDEFINED) else js.string(value)


def _bool(call: Call, name: str, default: bool = False) -> bool:
    value = call.arg(name)
    if value is UNDEFINED or value is None:
        return default
    return js.is_true(value)


def _set_create(call: Call) -> str:
    name = _text(call).strip()
    if not name:
        raise CommandError("A Quick Reply set needs a name")
    library = _library(call)
    library.sets[name] = QuickReplySet.new(
        name,
        disableSend=_bool(call, "nosend"),
        placeBeforeInput=_bool(call, "before"),
        injectInput=_bool(call, "inject"),
    )
    call.host.save_quick_reply_set(name)
    return ""


def _set_delete(call: Call) -> str:
    name = _text(call).strip()
    library = _library(call)
    if library.sets.pop(name, None) is not None:
        library.global_sets[:] = [s for s in library.global_sets if s.get("set") != name]
        library.chat_sets[:] = [s for s in library.chat_sets if s.get("set") != name]
        call.host.save_quick_reply_set(name, deleted=True)
    return ""


def _set_list(call: Call) -> str:
    library = _library(call)
    which = _text(call).strip() or "all"
    if which == "global":
        names = [str(s.get("set")) for s in library.global_sets]
    elif which == "chat":
        names = [str(s.get("set")) for s in library.chat_sets]
    else:
        names = list(library.sets)
    return js.stringify(names) or "[]"


def _toggle(where: str, on: bool) -> Any:
    def run(call: Call) -> str:
        name = _text(call).strip()
        _set(call, name)
        library = _library(call)
        links = library.global_sets if where == "global" else library.chat_sets
        links[:] = [s for s in links if s.get("set") != name]
        if on:
            links.append({"set": name, "isVisible": not js.is_false(call.arg("visible"))})
        call.host.save_quick_reply_links(where)
        return ""

    return run


def _reply_fields(call: Call) -> dict[str, Any]:
    switches = {
        "title": "title",
        "icon": "icon",
    }
    flags = {
        "hidden": "isHidden",
        "startup": "executeOnStartup",
        "user": "executeOnUser",
        "bot": "executeOnAi",
        "load": "executeOnChatChange",
        "new": "executeOnNewChat",
        "group": "executeOnGroupMemberDraft",
        "showlabel": "showLabel",
    }
    fields: dict[str, Any] = {}
    for arg, key in switches.items():
        if call.arg(arg) is not UNDEFINED:
            fields[key] = js.string(call.arg(arg))
    for arg, key in flags.items():
        if call.arg(arg) is not UNDEFINED:
            fields[key] = js.is_true(call.arg(arg))
    return fields


def _create(call: Call) -> str:
    target = _set(call, call.arg("set"))
    label = js.string(call.arg("label", ""))
    target.add(label, _text(call), **_reply_fields(call))
    call.host.save_quick_reply_set(target.name)
    return ""


def _find_reply(call: Call) -> tuple[QuickReplySet, dict[str, Any]]:
    target = _set(call, call.arg("set"))
    reply_id = call.arg("id")
    if reply_id not in (UNDEFINED, None, ""):
        found = target.find_id(int(js.number(reply_id)))
    else:
        found = target.find(js.string(call.arg("label", "")))
    if found is None:
        raise CommandError("No such quick reply")
    return target, found


def _update(call: Call) -> str:
    target, reply = _find_reply(call)
    if call.arg("newlabel") is not UNDEFINED:
        reply["label"] = js.string(call.arg("newlabel"))
    if call.has_unnamed:
        reply["message"] = _text(call)
    reply.update(_reply_fields(call))
    call.host.save_quick_reply_set(target.name)
    return ""


def _delete(call: Call) -> str:
    target, reply = _find_reply(call)
    target.remove(reply)
    call.host.save_quick_reply_set(target.name)
    return ""


def _list(call: Call) -> str:
    target = _set(call, _text(call).strip())
    return js.stringify([r.get("label", "") for r in target.replies]) or "[]"


def _get(call: Call) -> str:
    _, reply = _find_reply(call)
    return js.stringify(reply) or ""


def _arg(call: Call) -> str:
    value = call.value
    parts = value if isinstance(value, list) else [value]
    if not parts or parts[0] in ("", UNDEFINED):
        raise CommandError("/qr-arg needs a name")
    name = js.string(parts[0])
    default = parts[1] if len(parts) > 1 else ""
    call.scope.macros.setdefault(f"arg::{name}", default)
    return ""


def run_quick_reply(call: Call, qualified: str) -> Any:
    """``/run Set.Label``: the reply's message run with ``/run``'s named arguments as
    ``{{arg::name}}`` macros; its result is passed on."""
    found = _library(call).find(qualified)
    if found is None:
        raise CommandError(f'No Quick Reply found for "{qualified}".')
    _, reply = found
    scope = Scope()
    for name, value in call.named.items():
        scope.macros[f"arg::{name}"] = value
    scope.macros["arg::*"] = ""
    result = call.interpreter.run(js.string(reply.get("message", "")), scope=scope)
    return result.pipe


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
)
_WHICH = (Arg("set", required=True), Arg("label"), Arg("id", types=("number",)))

COMMANDS = (
    Command(
        "qr-set-create",
        _set_create,
        "Creates a Quick Reply set.",
        aliases=("qr-presetadd",),
        named=(Arg("nosend", types=("boolean",)), Arg("before", types=("boolean",)), Arg("inject", types=("boolean",))),
        unnamed=(Arg("name", required=True),),
    ),
    Command(
        "qr-set-delete",
        _set_delete,
        "Deletes a Quick Reply set.",
        aliases=("qr-presetdelete",),
        unnamed=(Arg("name", required=True),),
    ),
    Command(
        "qr-set-list",
        _set_list,
        "The names of the sets (all, global or chat).",
        unnamed=(Arg("which", default="all", choices=("all", "global", "chat")),),
        returns="the names as JSON",
    ),
    Command(
        "qr-set-on",
        _toggle("global", True),
        "Switches a set on for every chat.",
        aliases=("qr-set",),
        named=(Arg("visible", types=("boolean",), default="true"),),
        unnamed=(Arg("name", required=True),),
    ),
    Command(
        "qr-set-off",
        _toggle("global", False),
        "Switches a set off for every chat.",
        unnamed=(Arg("name", required=True),),
    ),
    Command(
        "qr-chat-set-on",
        _toggle("chat", True),
        "Switches a set on for this chat.",
        aliases=("qr-chat-set",),
        named=(Arg("visible", types=("boolean",), default="true"),),
        unnamed=(Arg("name", required=True),),
    ),
    Command(
        "qr-chat-set-off",
        _toggle("chat", False),
        "Switches a set off for this chat.",
        unnamed=(Arg("name", required=True),),
    ),
    Command(
        "qr-create",
        _create,
        "Adds a Quick Reply to a set.",
        aliases=("qr-add",),
        named=(Arg("set", required=True), Arg("label", required=True), *_SWITCHES),
        unnamed=(Arg("message", required=True),),
    ),
    Command(
        "qr-update",
        _update,
        "Changes a Quick Reply.",
        aliases=("qr-mod",),
        named=(*_WHICH, Arg("newlabel"), *_SWITCHES),
        unnamed=(Arg("message"),),
    ),
    Command("qr-delete", _delete, "Deletes a Quick Reply.", aliases=("qr-del",), named=_WHICH),
    Command(
        "qr-list",
        _list,
        "The labels of a set's replies.",
        aliases=("qr-get-list",),
        unnamed=(Arg("set", required=True),),
        returns="the labels as JSON",
    ),
    Command("qr-get", _get, "A Quick Reply's fields as JSON.", named=_WHICH, returns="the reply as JSON"),
    Command(
        "qr-arg",
        _arg,
        "Sets a default for {{arg::name}} in this Quick Reply.",
        unnamed=(Arg("name", required=True), Arg("value")),
        split=True,
        split_count=2,
    ),
)

__all__ = ["COMMANDS", "run_quick_reply"]
