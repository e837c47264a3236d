"""The language itself: ``/pass`` (``/return``), ``/echo``, ``/run`` and ``/:``, ``/let``, ``/var``,
``/if``, ``/while``, ``/times``, ``/abort``, ``/break``, ``/delay``, closures as text.

As in SillyTavern 1.18, ``/return`` is another name of ``/pass``: it sets the result and the script
goes on (a closure does not stop at it).  Loops stop after 100 rounds unless ``guard=off``.
"""

from __future__ import annotations

import math
from typing import Any

from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import UNDEFINED
from peargarden.text.jsvalue import truthy as js_truthy

from .. import values as js
from ..registry import Arg, Command
from ..runtime import BreakSignal, Call, ClosureValue, CommandError, Result
from .chat import RAW
from .quickreplies import run_quick_reply
from .variables import chat_variables

MAX_LOOPS = 100
_SAFE_INTEGER = 2**53 - 1
_CONDITIONS = ("eq", "neq", "in", "nin", "gt", "gte", "lt", "lte", "not")


def _pass(call: Call) -> Any:
    value = call.value
    if isinstance(value, list):
        if any(isinstance(item, ClosureValue) for item in value):
            raise CommandError("Command /pass does not support multiple closures")
        return js.stringify(value)
    return value


def _echo(call: Call) -> Any:
    value = call.value
    if value == "":
        return ""
    severity = call.arg("severity")
    if isinstance(severity, str) and severity and severity not in ("error", "warning", "success", "info"):
        call.host.toast("warning", f"Invalid severity provided for /echo command: {severity}")
        severity = None
    text = js.string(value)
    on_click = call.arg("onClick")
    if on_click is not UNDEFINED and not isinstance(on_click, ClosureValue):
        call.host.toast("warning", "Invalid onClick provided for /echo command. This is not a closure")
    title = call.arg("title")
    kind = severity if isinstance(severity, str) and severity else "info"
    call.host.toast(kind, text, js.string(title) if title not in (UNDEFINED, None, "") else "")
    return text


def _abort(call: Call) -> str:
    quiet = call.arg("quiet")
    if isinstance(quiet, ClosureValue):
        raise CommandError("argument 'quiet' cannot be a closure for command /abort")
    reason = call.value
    if js.string(reason) == "":
        reason = "/abort command executed"
    call.interpreter.abort.abort(reason, quiet=not js.is_false(quiet if quiet is not UNDEFINED else "true"))
    return ""


def _run(call: Call) -> Any:
    name = call.value
    if name in ("", None, UNDEFINED):
        raise CommandError("No name provided for /run command")
    if isinstance(name, ClosureValue):
        name.breaker = BreakSignal()
        return call.run_closure(name).pipe
    if isinstance(name, list):
        name = "".join(js.string(part) for part in name)
    name = js.string(name)
    scope = call.scope
    if scope.exists(name):
        closure = scope.get(name)
        if not isinstance(closure, ClosureValue):
            raise CommandError(f'"{name}" is not callable.')
        closure.parent = scope
        closure.breaker = BreakSignal()
        closure.provided = [
            (parameter.name, call.named[parameter.name])
            for parameter in closure.node.parameters
            if parameter.name in call.named
        ]
        return call.run_closure(closure).pipe
    if not hasattr(call.host, "quick_replies"):
        raise CommandError("Quick Reply extension is not loaded")
    name = name.strip()
    try:
        return run_quick_reply(call, name)
    except CommandError as error:
        raise CommandError(f'Error running Quick Reply "{name}": {error}') from error


def _words(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _let(call: Call) -> Any:
    return _declare(call, assign=False)


def _var(call: Call) -> Any:
    return _declare(call, assign=True)


def _declare(call: Call, *, assign: bool) -> Any:
    parts = list(_words(call.value))
    key = call.arg("key")
    if key is not UNDEFINED:
        if not isinstance(key, str):
            raise CommandError("Key must be a string")
        if call.has_unnamed:
            value = " ".join(js.string(p) for p in parts) if isinstance(parts[0], str) else parts[0]
            return _store(call, key, value, assign=assign)
        if assign:
            return call.scope.get(key, call.arg("index"))
        call.scope.let(key)
        return ""
    key = parts.pop(0) if parts else UNDEFINED
    if not isinstance(key, str):
        raise CommandError("Key must be a string")
    if parts:
        value = " ".join(js.string(p) for p in parts) if isinstance(parts[0], str) else parts[0]
        return _store(call, key, value, assign=assign)
    if assign:
        return call.scope.get(key, call.arg("index"))
    call.scope.let(key)
    return ""


def _store(call: Call, key: str, value: Any, *, assign: bool) -> Any:
    if assign:
        call.scope.set(key, value, call.arg("index"), call.arg("as"))
    else:
        call.scope.let(key, value)
    return value


# -- conditions ------------------------------------------------------------------------------------


def _operand(call: Call, operand: Any) -> Any:
    """A comparison operand: a number, else a scoped, chat or global variable, else the text."""
    if operand is UNDEFINED:
        return UNDEFINED
    if operand == "":
        return ""
    number = js.number(operand) if isinstance(operand, str) and js_trim(operand) else math.nan
    if not math.isnan(number):
        return js.as_js_number(number)
    name = js.string(operand)
    if call.scope.exists(name):
        found = call.scope.get(name)
        return "" if found is None or found is UNDEFINED else found
    variables = chat_variables(call)
    for scope in ("local", "global"):
        if variables.exists(scope, name):
            found = variables.read(scope, name)
            return "" if found is None or found is UNDEFINED else found
    return name


def _first(call: Call, *names: str) -> Any:
    for name in names:
        value = call.arg(name)
        if value is not UNDEFINED and value is not None:
            return value
    return UNDEFINED


def condition(call: Call) -> bool:
    """``/if`` and ``/while``: ``left``/``right``/``rule`` (with their aliases ``a``/``b``,
    ``first``/``second``, ``x``/``y``); no right operand tests the left one for truth."""
    left = _operand(call, _first(call, "a", "left", "first", "x"))
    right = _operand(call, _first(call, "b", "right", "second", "y"))
    rule = call.arg("rule")
    return evaluate(rule, left, right)


def evaluate(rule: Any, left: Any, right: Any) -> bool:
    if left is UNDEFINED:
        raise CommandError("Left operand is not provided")
    if right is UNDEFINED:
        if rule is UNDEFINED or rule == "not":
            truthy: bool = rule != "not"
            text: str = js.string(left)
            if js.is_true(text):
                return truthy
            if js.is_false(text):
                return not truthy
            return truthy if js_truthy(left) else not truthy
        raise CommandError(
            "Unknown boolean comparison rule for truthy check. If right operand is not provided, "
            f"the rule must not provided or be 'not'. Provided: {js.string(rule)}"
        )
    if rule is UNDEFINED:
        rule = "eq"
    numbers = js.typeof(left) == "number" and js.typeof(right) == "number"
    if numbers:
        a, b = float(left), float(right)
        compare = {"gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b, "eq": a == b, "neq": a != b}
        if rule in compare:
            return compare[rule]
        if rule not in ("in", "nin"):
            raise CommandError(
                "Unknown boolean comparison rule for type number. Accepted: gt, gte, lt, lte, eq, neq. "
                f"Provided: {js.string(rule)}"
            )
    a_text = left.lower() if isinstance(left, str) else (js.stringify(left) or "").lower()
    b_text = right.lower() if isinstance(right, str) else (js.stringify(right) or "").lower()
    if rule == "in":
        return b_text in a_text
    if rule == "nin":
        return b_text not in a_text
    if rule == "eq":
        return a_text == b_text
    if rule == "neq":
        return a_text != b_text
    raise CommandError(
        f"Unknown boolean comparison rule for type number. Accepted: in, nin, eq, neq. Provided: {js.string(rule)}"
    )


def _body(value: Any) -> Any:
    """The command a control command runs: its first closure, or its words as one subcommand."""
    if value in ("", None, UNDEFINED):
        return None
    words = _words(value)
    if words and isinstance(words[0], ClosureValue):
        return words[0]
    return " ".join(js.string(word) for word in words)


def _run_body(call: Call, body: Any) -> Result:
    if isinstance(body, ClosureValue):
        return call.run_closure(body)
    return call.run_text(body)


def _if(call: Call) -> Any:
    passed = condition(call)
    body = _body(call.value)
    otherwise = call.arg("else")
    if passed and body is not None:
        return _run_body(call, body).pipe
    if not passed and (isinstance(otherwise, ClosureValue) or (isinstance(otherwise, str) and otherwise != "")):
        return _run_body(call, otherwise).pipe
    return ""


def _loop_limit(call: Call) -> int:
    guard = call.arg("guard")
    if isinstance(guard, ClosureValue):
        raise CommandError("argument 'guard' cannot be a closure for command /while")
    return _SAFE_INTEGER if js.is_false(guard) else MAX_LOOPS


def _while(call: Call) -> Any:
    limit = _loop_limit(call)
    body = _body(call.value)
    result: Result | None = None
    for _ in range(limit):
        if not (condition(call) and body is not None):
            break
        if isinstance(body, ClosureValue):
            body.breaker = BreakSignal()
        result = _run_body(call, body)
        if result.is_aborted or result.is_break:
            break
    return result.pipe if result is not None else ""


def _times(call: Call) -> Any:
    limit = _loop_limit(call)
    value = call.value
    if isinstance(value, list):
        repeats, rest = (value[0] if value else UNDEFINED), value[1:]
        body: Any = rest[0] if rest and isinstance(rest[0], ClosureValue) else " ".join(js.string(r) for r in rest)
    else:
        repeats, *words = js.string(value).split(" ")
        body = " ".join(words)
    count = js.number(repeats)
    # ``for (i = 0; i < count; i++)``: a fraction still runs its last, partial round.
    rounds = 0 if math.isnan(count) or count <= 0 else int(min(math.ceil(count), limit))
    result: Result | None = None
    for index in range(rounds):
        if isinstance(body, ClosureValue):
            body.breaker = BreakSignal()
            body.macros["timesIndex"] = index
            result = call.run_closure(body)
        else:
            result = call.run_text(body.replace("{{timesIndex}}", str(index)))
        if result.is_aborted or result.is_break:
            break
    return result.pipe if result is not None else ""


def _delay(call: Call) -> str:
    amount = call.value
    if not amount:
        return ""
    wait = js.number(amount)
    call.host.sleep(0 if math.isnan(wait) else max(wait, 0) / 1000)
    return ""


def _closure_serialize(call: Call) -> str:
    if not isinstance(call.value, ClosureValue):
        raise CommandError("unnamed argument must be a closure")
    return call.value.raw_text


def _closure_deserialize(call: Call) -> ClosureValue:
    node = call.interpreter.parse(js.string(call.value), call.executor.flags)
    return ClosureValue(node, call.scope)


def _nothing(call: Call) -> str:
    return ""


_CLOSURE = ("closure", "subcommand")
_CONDITION_ARGS = (
    Arg("left", "left operand", ("variable_name", "string", "number"), required=True),
    Arg("right", "right operand", ("variable_name", "string", "number")),
    Arg("rule", "comparison rule", default="eq", choices=_CONDITIONS),
)

# ``/let`` and ``/var``: a name, then everything after it as the value.
_NAME_AND_VALUE = (
    Arg("name", "variable name", ("variable_name",)),
    Arg("value", types=("string", "number", "boolean", "list", "dictionary", "closure")),
)

COMMANDS = (
    Command(
        "pass",
        _pass,
        "Passes the text to the next command through the pipe.",
        aliases=("return",),
        unnamed=(Arg("text", types=("string", "number", "boolean", "list", "dictionary", "closure"), required=True),),
        returns="the provided value",
    ),
    Command(
        "echo",
        _echo,
        "Shows its text as a toast and passes it on.",
        named=(
            Arg("title", "title of the toast"),
            Arg(
                "severity",
                "info, warning, error or success",
                default="info",
                choices=("info", "warning", "error", "success"),
            ),
            Arg("timeout", types=("number",)),
            Arg("extendedTimeout", types=("number",)),
            Arg("preventDuplicates", types=("boolean",), default="false"),
            Arg("awaitDismissal", types=("boolean",), default="false"),
            Arg("cssClass"),
            Arg("color"),
            Arg("escapeHtml", types=("boolean",), default="true"),
            Arg("onClick", types=("closure",)),
            RAW,
        ),
        unnamed=(Arg("text", required=True),),
        raw_quotes=True,
        returns="the text",
    ),
    Command(
        "abort",
        _abort,
        "Stops the script; with quiet=false a toast shows the reason.",
        named=(Arg("quiet", types=("boolean",), default="true"),),
        unnamed=(Arg("reason"),),
    ),
    Command(
        "run",
        _run,
        "Runs a closure, a closure kept in a scoped variable, or a Quick Reply (Set.Label); "
        "named arguments go to the closure's parameters.",
        aliases=("call", "exec"),
        unnamed=(
            Arg("name", "closure, variable or Quick Reply", ("variable_name", "closure", "string"), required=True),
        ),
        returns="the closure's result",
    ),
    Command(
        "let",
        _let,
        "Declares a variable in the current scope.",
        named=(Arg("key", "variable name", ("variable_name",)),),
        unnamed=_NAME_AND_VALUE,
        split=True,
        split_count=1,
        returns="the variable value",
    ),
    Command(
        "var",
        _var,
        "Reads or sets a scoped variable; index= reads and writes inside a JSON list or dictionary.",
        named=(
            Arg("key", "variable name", ("variable_name",)),
            Arg("index", "index in a list or dictionary", ("number",)),
            Arg("as", "type of the value set with index", default="string"),
        ),
        unnamed=_NAME_AND_VALUE,
        split=True,
        split_count=1,
        returns="the variable value",
    ),
    Command(
        "if",
        _if,
        "Runs the closure when the comparison holds, else= when it does not; no right operand tests the left one.",
        named=(*_CONDITION_ARGS, Arg("else", "command to run if not true", _CLOSURE)),
        unnamed=(Arg("command", "command to run if true", _CLOSURE, required=True),),
        split=True,
        returns='the result of the command run ("then" or "else")',
    ),
    Command(
        "while",
        _while,
        "Runs the closure while the comparison holds (100 rounds at most unless guard=off).",
        named=(*_CONDITION_ARGS, Arg("guard", "off: no round limit", default="off", choices=("on", "off"))),
        unnamed=(Arg("command", "command to run while true", _CLOSURE, required=True),),
        split=True,
        returns="the result of the last round",
    ),
    Command(
        "times",
        _times,
        "Runs the closure N times; {{timesIndex}} counts from 0 (100 rounds at most unless guard=off).",
        named=(Arg("guard", "off: no round limit", choices=("on", "off")),),
        unnamed=(Arg("repeats", types=("number",), required=True), Arg("command", types=_CLOSURE, required=True)),
        split=True,
        split_count=1,
        returns="the result of the last round",
    ),
    Command(
        "break",
        _nothing,
        "Leaves the loop or closure run by /run or /: (with a value: that value as the result).",
        unnamed=(Arg("value"),),
    ),
    Command("breakpoint", _nothing, "A stop for the Quick Reply editor's debugger; does nothing in a normal run."),
    Command(
        "parser-flag",
        _nothing,
        "Sets a parser flag (STRICT_ESCAPING, REPLACE_GETVAR) for the rest of the script.",
        unnamed=(Arg("flag", required=True), Arg("state", default="on")),
    ),
    Command("/", _nothing, "A comment (// or /#).", aliases=("#",), unnamed=(Arg("comment"),)),
    Command(
        "delay",
        _delay,
        "Waits the given milliseconds.",
        aliases=("wait", "sleep"),
        unnamed=(Arg("milliseconds", types=("number",), required=True),),
    ),
    Command(
        "closure-serialize",
        _closure_serialize,
        "A closure's text, to keep in a variable.",
        unnamed=(Arg("closure", types=("closure",), required=True),),
        returns="the closure as text",
    ),
    Command(
        "closure-deserialize",
        _closure_deserialize,
        "A closure from its text.",
        unnamed=(Arg("text", required=True),),
        returns="the closure",
    ),
)

__all__ = ["COMMANDS", "MAX_LOOPS", "condition", "evaluate"]
