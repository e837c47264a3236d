"""Running a parsed STscript: scopes, closures, the pipe, and one command after another.

The run follows SillyTavern 1.18's executor: each command's named arguments, then its unnamed
argument, are substituted (``{{pipe}}``, ``{{var::}}``, the scope's macros, then every other macro
through the host) right before the command runs, so a macro sees what earlier commands did.  A
command with no unnamed argument receives the previous result (the pipe) unless ``||`` stood before
it.  A closure runs in a fresh copy of its scope each time (a loop body starts clean), with the scope
it was handed to as parent — scoping is dynamic, as in SillyTavern.

Everything a command does outside the script (the chat, variables, the model, toasts) goes through
the :class:`Host` given to :class:`Interpreter`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from peargarden.text.jsstring import js_trim
from peargarden.text.jsvalue import UNDEFINED, truthy
from peargarden.text.macros import DynamicMacro

from . import values as js
from .parser import parse
from .syntax import Closure, ExecutionError, Executor, ParserError, ScriptError

if TYPE_CHECKING:
    from .registry import Command, Registry

_UNSET: Any = object()
_BOUNDARY = "\ufff0~CLOSURE~\ufff0"


class CommandError(Exception):
    """A command refused (JavaScript's ``throw new Error(message)`` inside a command)."""


class GenerationError(Exception):
    """The model could not be asked (a host raises it; ``/gen`` shows it as SillyTavern's "API Error")."""


class Host(Protocol):
    """The world a script acts on.  Commands reach further host methods through ``call.host``."""

    @property
    def macro_engine(self) -> str:
        """``"new"`` (1.17+'s engine, SillyTavern's ``experimental_macro_engine``) or ``"legacy"``."""
        ...

    def expand(self, text: str, dynamic: Mapping[str, DynamicMacro]) -> str:
        """Every macro of ``text`` as the chat would substitute it, plus ``dynamic`` ones."""
        ...

    def toast(self, kind: str, message: str, title: str = "") -> None: ...


class AbortSignal:
    """One per script run, shared by every closure in it: ``/abort`` and a stop button set it."""

    def __init__(self) -> None:
        self.aborted = False
        self.reason: Any = UNDEFINED
        self.quiet = False

    def is_set(self) -> bool:
        return self.aborted

    def abort(self, reason: Any, *, quiet: bool) -> None:
        self.aborted = True
        self.reason = reason
        self.quiet = quiet


class BreakSignal:
    """Set by ``/break``: the loop or ``/run`` that handed it out stops."""

    def __init__(self) -> None:
        self.is_break = False


class Scope:
    """Variables declared with ``/let`` (and closure parameters), macros like ``{{timesIndex}}``, the
    pipe; each looks up through its parents."""

    __slots__ = ("_pipe", "macros", "parent", "variables")

    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.variables: dict[str, Any] = {}
        self.macros: dict[str, Any] = {}
        self._pipe: Any = _UNSET

    @property
    def pipe(self) -> Any:
        if self._pipe is not _UNSET:
            return self._pipe
        return self.parent.pipe if self.parent is not None else UNDEFINED

    @pipe.setter
    def pipe(self, value: Any) -> None:
        self._pipe = value

    def macro_list(self) -> list[tuple[str, Any]]:
        own = list(self.macros.items())
        return own + (self.parent.macro_list() if self.parent is not None else [])

    def exists_here(self, key: str) -> bool:
        return key in self.variables

    def exists(self, key: str) -> bool:
        return key in self.variables or (self.parent is not None and self.parent.exists(key))

    def let(self, key: str, value: Any = UNDEFINED) -> None:
        if key in self.variables:
            raise CommandError(f'Variable named "{key}" already exists.')
        self.variables[key] = value

    def set(self, key: str, value: Any, index: Any = UNDEFINED, kind: Any = UNDEFINED) -> Any:
        if key not in self.variables:
            if self.parent is not None:
                return self.parent.set(key, value, index, kind)
            raise CommandError(f'No such variable: "{key}"')
        if index is None or index is UNDEFINED:
            self.variables[key] = value
            return value
        current = self.variables[key]
        numeric = js.number(index)
        position = index if js.is_nan(index) else js.as_js_number(numeric)
        try:
            parsed = js.json_parse(current)
            js.set_member(parsed, position, js.convert_type(value, kind))
            current = js.stringify(parsed)
        except (js.JsonError, js.JsTypeError):
            # SillyTavern retries the assignment on the unparsed value; on text that throws again.
            js.set_member(current, index, js.convert_type(value, kind))
        self.variables[key] = current
        return value

    def get(self, key: str, index: Any = UNDEFINED) -> Any:
        if key not in self.variables:
            if self.parent is not None:
                return self.parent.get(key, index)
            raise CommandError(f'No such variable: "{key}"')
        value = self.variables[key]
        if index is not None and index is not UNDEFINED:
            with contextlib.suppress(js.JsonError):
                value = js.json_parse(value)
            position = index if js.is_nan(index) else js.as_js_number(js.number(index))
            value = js.member(value, position)
            if isinstance(value, dict | list) or value is None:
                return js.stringify(value)
            return "" if value is UNDEFINED else value
        return numeric_or_text(value)


def numeric_or_text(value: Any) -> Any:
    """How SillyTavern reads a stored variable: numeric text becomes a number, blank or other text
    stays as it is, nothing becomes ``""``."""
    if isinstance(value, str) and js_trim(value) == "":
        return value
    if js.is_nan(value):
        return value if truthy(value) else ""
    return js.as_js_number(js.number(value))


class ClosureValue:
    """A closure as a value: the parsed closure plus what a run gives it (the scope it was handed
    to, macros such as ``timesIndex``, the break signal of the loop running it, ``/run``'s
    arguments).  One object per closure literal per script run, as SillyTavern keeps one."""

    __slots__ = ("breaker", "macros", "node", "parent", "provided")

    def __init__(self, node: Closure, parent: Scope | None) -> None:
        self.node = node
        self.parent = parent
        self.macros: dict[str, Any] = {}
        self.breaker: BreakSignal | None = None
        self.provided: list[tuple[str, Any]] = []

    @property
    def execute_now(self) -> bool:
        return self.node.execute_now

    @property
    def raw_text(self) -> str:
        return self.node.raw_text

    def __str__(self) -> str:
        return str(self.node)


class Result:
    """``SlashCommandClosureResult``: what a script or closure gave back."""

    __slots__ = ("abort_reason", "error_message", "interrupt", "is_aborted", "is_break", "is_error", "is_quiet", "pipe")

    def __init__(self, pipe: Any = UNDEFINED) -> None:
        self.pipe = pipe
        self.interrupt = False
        self.is_break = False
        self.is_aborted = False
        self.is_quiet = False
        self.abort_reason: Any = UNDEFINED
        self.is_error = False
        self.error_message: Any = UNDEFINED

    def to_json(self) -> dict[str, Any]:
        """The result as the recordings show it (fields that are ``undefined`` left out)."""
        out: dict[str, Any] = {}
        if self.pipe is not UNDEFINED:
            out["pipe"] = self.pipe if not isinstance(self.pipe, ClosureValue) else str(self.pipe)
        out["isError"] = self.is_error
        if self.error_message is not UNDEFINED:
            out["errorMessage"] = self.error_message
        out["isAborted"] = self.is_aborted
        out["isQuietlyAborted"] = self.is_quiet
        if self.abort_reason is not UNDEFINED:
            out["abortReason"] = self.abort_reason
        out["isBreak"] = self.is_break
        out["interrupt"] = self.interrupt
        out["pipe_type"] = "null" if self.pipe is None else js.typeof(self.pipe)
        return out


class Call:
    """One command's call: its resolved arguments and the run around it."""

    __slots__ = ("executor", "has_unnamed", "interpreter", "named", "scope", "value")

    def __init__(self, interpreter: Interpreter, executor: Executor, scope: Scope) -> None:
        self.interpreter = interpreter
        self.executor = executor
        self.scope = scope
        self.named: dict[str, Any] = {}
        self.value: Any = ""
        self.has_unnamed = bool(executor.unnamed)

    @property
    def host(self) -> Any:
        return self.interpreter.host

    def arg(self, name: str, default: Any = UNDEFINED) -> Any:
        return self.named.get(name, default)

    def run_closure(self, closure: ClosureValue) -> Result:
        return self.interpreter.execute(closure)

    def run_text(self, text: str) -> Result:
        """A subcommand given as text (``/if … "/echo hi"``): parsed and run in this scope;
        errors are thrown, as SillyTavern's ``executeSubCommands`` throws them."""
        if text.startswith('"') and text.endswith('"'):
            text = text[1:-1]
        return self.interpreter.run(text, scope=self.scope, flags=self.executor.flags)


def unescape(value: Any) -> Any:
    r"""``\{`` and ``\}`` become braces once the argument is substituted."""
    if isinstance(value, str) and value:
        return value.replace("\\{", "{").replace("\\}", "}")
    return value


def lint_pipe(value: Any) -> Any:
    """A command's return value as a pipe: nothing becomes ``""``, anything but text or a closure
    becomes its JSON."""
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, str | ClosureValue):
        return value
    return js.stringify(value) or ""


def _macro_pattern(key: str, *, anchored: bool = False) -> str:
    pattern = re.escape(key.replace("*", "~~~WILDCARD~~~")).replace(
        re.escape("~~~WILDCARD~~~"), r"(?:(?:(?!(?:::|}})).)*)"
    )
    return f"^{pattern}$" if anchored else pattern


def _sorted_macros(scope: Scope) -> list[tuple[str, Any]]:
    def order(item: tuple[str, Any]) -> tuple[int, int]:
        key = item[0]
        return (1, -key.index("*")) if "*" in key else (0, 0)

    return sorted(scope.macro_list(), key=order)


class Interpreter:
    """Runs scripts for one host.  ``run`` is a script from text; ``execute`` a closure value."""

    def __init__(self, registry: Registry, host: Any, *, abort: AbortSignal | None = None) -> None:
        self.registry = registry
        self.host = host
        self.abort = abort or AbortSignal()
        self._closures: dict[int, ClosureValue] = {}

    # -- entry points ------------------------------------------------------------------------------

    def parse(self, text: str, flags: frozenset[str] | None = None) -> Closure:
        engine = self.host.macro_engine == "new"
        return parse(text, self.registry, flags={name: True for name in flags or ()}, new_macro_engine=engine)

    def run(self, text: str, *, scope: Scope | None = None, flags: frozenset[str] | None = None) -> Result:
        """Parse and run ``text``; parser and execution errors are raised."""
        node = self.parse(text, flags)
        root = ClosureValue(node, scope)
        return self.execute(root)

    def closure(self, node: Closure, parent: Scope, breaker: BreakSignal | None) -> ClosureValue:
        """The one value of a closure literal in this run, handed to ``parent``."""
        value = self._closures.get(id(node))
        if value is None:
            value = self._closures[id(node)] = ClosureValue(node, parent)
        value.parent = parent
        value.breaker = breaker
        return value

    # -- a closure ---------------------------------------------------------------------------------

    def execute(self, closure: ClosureValue) -> Result:
        scope = Scope(closure.parent)
        scope.macros = dict(closure.macros)
        node = closure.node
        for parameter in node.parameters:
            value = self._argument(parameter.value, scope, closure.breaker, outer=scope)
            scope.let(parameter.name, unescape(value))
        for name, given in closure.provided:
            if isinstance(given, ClosureValue):
                given.parent = scope
                given.breaker = closure.breaker
                value = self.execute(given).pipe if given.execute_now else given
            elif isinstance(given, str):
                value = self.substitute(given, scope.parent or scope)
            else:
                value = given
            scope.set(name, unescape(value))
        if not node.executors:
            scope.pipe = ""
        first = True
        for executor in node.executors:
            if closure.breaker is not None and closure.breaker.is_break:
                break
            if executor.kind == "breakpoint":
                first = False
                continue
            call = Call(self, executor, scope)
            if executor.kind == "break":
                value = self._unnamed(call, first, closure.breaker)
                scope.pipe = scope.pipe if value is UNDEFINED or value is None else value
                if closure.breaker is not None:
                    closure.breaker.is_break = True
                    break
                first = False
                continue
            command = self.registry.get(executor.name)
            if command is None:  # not verified (a closure parsed without checking names)
                raise ExecutionError(
                    f"Unknown command /{executor.name}", node.full_text, executor.start, command=executor.name
                )
            self._named(call, command, closure.breaker)
            call.value = self._unnamed(call, first, closure.breaker, command)
            if self.abort.is_set():
                return self._aborted()
            scope.pipe = lint_pipe(self._call(command, call, node))
            if self.abort.is_set():  # the command itself may have aborted (/abort, a stop)
                return self._aborted()
            first = False
        result = Result(scope.pipe)
        result.is_break = closure.breaker.is_break if closure.breaker is not None else False
        return result

    def _aborted(self) -> Result:
        result = Result()
        result.is_aborted = True
        result.is_quiet = self.abort.quiet
        result.abort_reason = js.string(self.abort.reason)
        return result

    def _call(self, command: Command, call: Call, node: Closure) -> Any:
        executor = call.executor
        value = call.value
        call.value = "" if value is UNDEFINED or value is None else value
        try:
            return command.run(call)
        except ScriptError as error:
            cause: BaseException = error
            message = error.message
        except (CommandError, js.JsTypeError, js.JsonError) as error:
            cause, message = error, str(error)
        except RecursionError as error:
            cause, message = error, "Maximum call stack size exceeded"
        raise ExecutionError(message, node.full_text, executor.start, command=executor.name, cause=cause)

    # -- arguments ---------------------------------------------------------------------------------

    def _argument(self, value: str | Closure | None, scope: Scope, breaker: BreakSignal | None, *, outer: Scope) -> Any:
        if value is None:
            return UNDEFINED
        if isinstance(value, Closure):
            closure = self.closure(value, outer, breaker)
            return self.execute(closure).pipe if closure.execute_now else closure
        return self.substitute(value, scope)

    def _named(self, call: Call, command: Command, breaker: BreakSignal | None) -> None:
        multiple = {arg.name for arg in command.named if arg.multiple}

        def assign(name: str, value: Any) -> None:
            if isinstance(value, list):
                for item in value:
                    assign(name, item)
                return
            value = unescape(value)
            if name in multiple:
                call.named.setdefault(name, []).append(value)
            else:
                call.named[name] = value

        for argument in call.executor.named:
            assign(argument.name, self._argument(argument.value, call.scope, breaker, outer=call.scope))

    def _unnamed(self, call: Call, first: bool, breaker: BreakSignal | None, command: Command | None = None) -> Any:
        executor = call.executor
        if not executor.unnamed:
            if not first and executor.inject_pipe:
                pipe = call.scope.pipe
                call.has_unnamed = pipe is not None and pipe is not UNDEFINED
                return pipe
            return UNDEFINED
        parts = [self._argument(part.value, call.scope, breaker, outer=call.scope) for part in executor.unnamed]
        value: Any = parts
        if command is None or not command.split:
            if len(parts) == 1:
                value = parts[0]
            elif not any(isinstance(part, ClosureValue) for part in parts):
                value = "".join(js.string(part) for part in parts)
        if isinstance(value, list):
            return [unescape(part) for part in value]
        return unescape(value)

    # -- substitution ------------------------------------------------------------------------------

    def substitute(self, text: str, scope: Scope) -> Any:
        """``{{pipe}}``, ``{{var::name::index}}``, the scope's macros and every chat macro.  A scope
        macro holding a closure splits the text: the result is then a closure, or a list of text and
        closures."""
        macros = _sorted_macros(scope)
        if self.host.macro_engine == "new":
            return self._substitute_new(text, scope, macros)
        return self._substitute_legacy(text, scope, macros)

    def _substitute_new(self, text: str, scope: Scope, macros: list[tuple[str, Any]]) -> Any:
        closures: dict[str, ClosureValue] = {}

        def shown(value: Any) -> str:
            return "" if value is None or value is UNDEFINED else js.string(value)

        def read_var(args: list[str]) -> str:
            try:
                return shown(scope.get(args[0], args[1] if len(args) > 1 else UNDEFINED))
            except (CommandError, js.JsTypeError):
                return ""  # an unknown variable does not stop the script here

        dynamic: dict[str, DynamicMacro] = {
            "pipe": DynamicMacro(lambda _args: shown(scope.pipe)),
            "var": DynamicMacro(read_var, 1, 2),
        }
        grouped: dict[str, list[tuple[list[str], Any]]] = {}
        for key, value in macros:
            name, *rest = key.split("::")
            grouped.setdefault(name, []).append((rest, value))

        def custom(definitions: list[tuple[list[str], Any]]) -> Callable[[list[str]], str]:
            ordered = sorted(definitions, key=lambda item: "*" in item[0])

            def handler(args: list[str]) -> str:
                value = next(
                    (
                        v
                        for wanted, v in ordered
                        if len(wanted) == len(args) and all(w in ("*", a) for w, a in zip(wanted, args, strict=True))
                    ),
                    _UNSET,
                )
                if value is _UNSET:
                    return ""
                if isinstance(value, ClosureValue):
                    value.parent = scope
                    key = f"c{len(closures)}"
                    closures[key] = value
                    return f"{_BOUNDARY}{key}{_BOUNDARY}"
                return shown(value)

            return handler

        for name, definitions in grouped.items():
            dynamic[name] = DynamicMacro(custom(definitions), 0, None)
        out = self.host.expand(text, dynamic)
        if not closures:
            return out
        parts: list[Any] = [closures.get(part, part) for part in out.split(_BOUNDARY)]
        parts = [part for part in parts if part != ""]
        return parts[0] if len(parts) == 1 else parts

    def _substitute_legacy(self, text: str, scope: Scope, macros: list[tuple[str, Any]]) -> Any:
        alternatives = "|".join(_macro_pattern(key) for key, _ in macros)
        pattern = r"(?P<pipe>\{\{pipe\}\})|(?:\{\{var::(?P<var>\S+?)(?:::(?P<index>(?!\}\}).+))?\}\})"
        if alternatives:
            pattern += f"|(?:\\{{\\{{(?P<macro>{alternatives})\\}}\\}})"
        regex = re.compile(pattern)
        done = ""
        remaining = text
        listed: list[Any] = []
        while True:
            match = regex.search(remaining)
            if match is None:
                break
            before = self.host.expand(remaining[: match.start()], {})
            after = remaining[match.end() :]
            if match.group("pipe"):
                replacer = scope.pipe
            elif match.group("var"):
                # SillyTavern reads the index from a group name it never defined: no index here.
                replacer = scope.get(match.group("var"))
            else:
                name = match.group("macro")
                replacer = next(
                    (v for k, v in macros if k == name or re.match(_macro_pattern(k, anchored=True), name)),
                    UNDEFINED,
                )
            if isinstance(replacer, ClosureValue):
                replacer.parent = scope
                if match.start() > 0:
                    listed.append(before)
                listed.append(replacer)
                if match.end() + 1 < len(remaining):
                    rest = self._substitute_legacy(after, scope, macros)
                    listed.extend(rest if isinstance(rest, list) else [rest])
                return listed if len(listed) > 1 else listed[0]
            done = f"{done}{before}{js.string(replacer)}"
            remaining = after
        return done + self.host.expand(remaining, {})


class Outcome:
    """What ``run_script`` ends with: the result (``None`` for an empty script) or the error thrown."""

    __slots__ = ("error", "result")

    def __init__(self, result: Result | None = None, error: ScriptError | None = None) -> None:
        self.result = result
        self.error = error


def run_script(
    interpreter: Interpreter,
    text: str,
    *,
    handle_parser_errors: bool = True,
    handle_execution_errors: bool = False,
    scope: Scope | None = None,
) -> Outcome:
    """``executeSlashCommandsWithOptions``: parse and run, with SillyTavern's handling of errors
    (a toast and an empty result, or the error thrown) and its toast for a loud ``/abort``."""
    if not text:
        return Outcome()
    host = interpreter.host
    try:
        node = interpreter.parse(text)
    except ParserError as error:
        if not handle_parser_errors:
            return Outcome(error=error)
        host.toast("error", error.toast_text(), error.kind)
        return Outcome(Result())
    try:
        result = interpreter.execute(ClosureValue(node, scope))
    except ScriptError as error:
        if not handle_execution_errors:
            return Outcome(error=error)
        if isinstance(error, ExecutionError):
            host.toast("error", error.toast_text(), error.kind)
        else:
            host.toast("error", error.message)
        failed = Result()
        failed.is_error = True
        failed.error_message = error.message
        return Outcome(failed)
    if result.is_aborted and not result.is_quiet:
        host.toast("warning", result.abort_reason, "Command execution aborted")
        interpreter.abort.quiet = True
    return Outcome(result)


__all__ = [
    "AbortSignal",
    "BreakSignal",
    "Call",
    "ClosureValue",
    "CommandError",
    "GenerationError",
    "Host",
    "Interpreter",
    "Outcome",
    "Result",
    "Scope",
    "lint_pipe",
    "numeric_or_text",
    "run_script",
    "unescape",
]
