"""Chat and global variables: ``/setvar`` ``/getvar`` ``/addvar`` ``/incvar`` ``/decvar`` ``/flushvar``
``/listvar`` and their ``global`` twins.

Chat variables are the chat's ``chat_metadata.variables`` (the same ones ``{{getvar::}}``, MVU cards
and TavernHelper read); global ones live in the settings.  As in SillyTavern, ``/setvar`` stores
text, while ``/addvar``, ``/incvar`` and ``/decvar`` store numbers when both sides are numeric; a read
turns numeric text into a number and ``index=`` reads or writes inside a JSON list or object.
"""

from __future__ import annotations

from typing import Any

from peargarden.text.jsvalue import UNDEFINED

from .. import values as js
from ..registry import Arg, Command
from ..runtime import Call, ClosureValue, CommandError, numeric_or_text
from .returns import RETURN_TYPES, do_return

SCOPES = ("local", "global")


class ChatVariables:
    """SillyTavern's variable functions over the host's two stores (changed in place)."""

    def __init__(self, local: dict[str, Any], global_: dict[str, Any]) -> None:
        self.stores = {"local": local, "global": global_}

    def exists(self, scope: str, name: str) -> bool:
        return self.stores[scope].get(name, UNDEFINED) is not UNDEFINED

    def read(self, scope: str, name: str, index: Any = UNDEFINED) -> Any:
        value = self.stores[scope].get(name, UNDEFINED)
        if index is not UNDEFINED:
            try:
                value = js.json_parse(value)
                position = index if js.is_nan(index) else js.as_js_number(js.number(index))
                value = js.member(value, position)
                if isinstance(value, dict | list) or value is None:
                    value = js.stringify(value)
            except (js.JsonError, js.JsTypeError):
                pass  # SillyTavern keeps what it had read so far
        return numeric_or_text(value)

    def write(self, scope: str, name: Any, value: Any, index: Any = UNDEFINED, kind: Any = UNDEFINED) -> Any:
        if not name:
            raise CommandError("Variable name cannot be empty or undefined.")
        key = js.string(name)
        store = self.stores[scope]
        if index is UNDEFINED:
            store[key] = value
            return value
        try:
            current = store.get(key, UNDEFINED)
            parsed = js.json_parse("null" if current is UNDEFINED or current is None else current)
            numeric = js.number(index)
            if js.is_nan(index):
                parsed = {} if parsed is None else parsed
                js.set_member(parsed, index, js.convert_type(value, kind))
            else:
                parsed = [] if parsed is None else parsed
                js.set_member(parsed, js.as_js_number(numeric), js.convert_type(value, kind))
            store[key] = js.stringify(parsed)
        except (js.JsonError, js.JsTypeError):
            pass  # SillyTavern: "that didn't work", nothing stored
        return value

    def add(self, scope: str, name: Any, value: Any) -> Any:
        current = self.read(scope, js.string(name))
        current = current if js.truthy(current) else 0
        try:
            parsed = js.json_parse(current)
        except js.JsonError:
            parsed = None
        if isinstance(parsed, list):
            parsed.append(value)
            self.write(scope, name, js.stringify(parsed))
            return parsed
        increment = js.number(value)
        if js.is_nan(increment) or js.is_nan(current):
            text = js.string(current if js.truthy(current) else "") + js.string(value)
            self.write(scope, name, text)
            return text
        total = js.number(current) + increment
        if js.is_nan(total):
            return ""
        result = js.as_js_number(total)
        self.write(scope, name, result)
        return result

    def delete(self, scope: str, name: str) -> str:
        if self.exists(scope, name):
            del self.stores[scope][name]
        return ""


def chat_variables(call: Call) -> ChatVariables:
    host = call.host
    return ChatVariables(host.variable_store("local"), host.variable_store("global"))


def resolve_variable(call: Call, name: Any) -> Any:
    """SillyTavern's ``resolveVariable``: a scoped, chat or global variable of that name, else the
    text itself."""
    if not isinstance(name, str):
        return name
    if call.scope.exists(name):
        return call.scope.get(name)
    variables = chat_variables(call)
    for scope in ("local", "global"):
        if variables.exists(scope, name):
            return variables.read(scope, name)
    return name


def _key(call: Call) -> Any:
    key = call.arg("key")
    return key if js.truthy(key) else call.arg("name")


def _get(scope: str) -> Any:
    def run(call: Call) -> str:
        key = call.arg("key")
        name = key if key is not UNDEFINED and key is not None else call.value
        return js.string(chat_variables(call).read(scope, js.string(name), call.arg("index")))

    return run


def _set(scope: str) -> Any:
    def run(call: Call) -> str:
        value = chat_variables(call).write(scope, _key(call), call.value, call.arg("index"), call.arg("as"))
        return js.string(value)

    return run


def _add(scope: str) -> Any:
    def run(call: Call) -> str:
        return js.string(chat_variables(call).add(scope, _key(call), call.value))

    return run


def _step(scope: str, by: int) -> Any:
    def run(call: Call) -> str:
        return js.string(chat_variables(call).add(scope, js.string(call.value), by))

    return run


def _flush(scope: str) -> Any:
    def run(call: Call) -> str:
        value = call.value
        name = call.run_closure(value).pipe if isinstance(value, ClosureValue) else value
        return chat_variables(call).delete(scope, js.string(name))

    return run


def _list(call: Call) -> Any:
    wanted = js.string(call.arg("scope", "")).strip().lower() or "all"
    variables = chat_variables(call)
    listed = [
        {"key": key, "value": value, "scope": scope}
        for scope in SCOPES
        for key, value in variables.stores[scope].items()
    ]
    local = wanted in ("all", "local")
    global_ = wanted in ("all", "global")

    def as_text(_: Any) -> str:
        def lines(scope: str) -> str:
            items = [f"{key}: {js.string(value)}" for key, value in variables.stores[scope].items()]
            return "\n\n".join(items) if items else f"No {scope} variables"

        parts = []
        if local:
            parts.append(f"### Local variables ({call.host.chat_name}):\n{lines('local')}")
        if global_:
            parts.append(f"### Global variables:\n{lines('global')}")
        return "\n\n".join(parts)

    return do_return(call, call.arg("return", "popup-html"), listed, as_text)


def _scoped(scope: str, local_name: str, global_name: str) -> str:
    return local_name if scope == "local" else global_name


def _commands() -> tuple[Command, ...]:
    out: list[Command] = []
    for scope in SCOPES:
        word = "chat" if scope == "local" else "global"
        key = Arg("key", "variable name", ("variable_name",), required=True)
        index = Arg("index", "list index or object key", ("number", "string"))
        kind = Arg("as", "type of the value set with index", default="string")
        prefix = "" if scope == "local" else "global"
        aliases = (lambda base: (f"{base}chatvar",)) if scope == "local" else (lambda base: ())
        out += [
            Command(
                f"set{prefix}var",
                _set(scope),
                f"Sets a {word} variable and passes the value on.",
                aliases=aliases("set"),
                named=(key, index, kind),
                unnamed=(Arg("value", types=("string", "number", "boolean", "list", "dictionary"), required=True),),
                returns="the set value",
            ),
            Command(
                f"get{prefix}var",
                _get(scope),
                f"Reads a {word} variable.",
                aliases=aliases("get"),
                named=(Arg("key", "variable name", ("variable_name",)), index),
                unnamed=(Arg("name", "variable name", ("variable_name",)),),
                returns="the value",
            ),
            Command(
                f"add{prefix}var",
                _add(scope),
                f"Adds to a {word} variable (a number, text appended, or an item of a JSON list).",
                aliases=aliases("add"),
                named=(key,),
                unnamed=(Arg("value", types=("number", "string"), required=True),),
                returns="the new value",
            ),
            Command(
                f"inc{prefix}var",
                _step(scope, 1),
                f"Adds 1 to a {word} variable.",
                aliases=aliases("inc"),
                unnamed=(Arg("name", "variable name", ("variable_name",), required=True),),
                returns="the new value",
            ),
            Command(
                f"dec{prefix}var",
                _step(scope, -1),
                f"Takes 1 from a {word} variable.",
                aliases=aliases("dec"),
                unnamed=(Arg("name", "variable name", ("variable_name",), required=True),),
                returns="the new value",
            ),
            Command(
                f"flush{prefix}var",
                _flush(scope),
                f"Deletes a {word} variable.",
                aliases=aliases("flush"),
                unnamed=(Arg("name", "variable name, or a closure that returns one", ("variable_name", "closure")),),
            ),
        ]
    out.append(
        Command(
            "listvar",
            _list,
            "Lists the chat and global variables (return=object gives them as JSON).",
            aliases=("listchatvar",),
            named=(
                Arg("scope", "all, local or global", default="all", choices=("all", "local", "global")),
                Arg("return", "how to give the list", default="popup-html", choices=RETURN_TYPES),
            ),
            returns="the variables as a JSON list",
        )
    )
    return tuple(out)


COMMANDS = _commands()

__all__ = ["COMMANDS", "ChatVariables", "chat_variables", "resolve_variable"]
