"""Cards whose TavernHelper scripts register a zod schema for MVU (``registerMvuSchema``), run here.

Such a card loads MVU and StageDog's ``mvu_zod.js`` and hands it a zod schema: ranges and clamps
(``z.coerce.number().transform(v => _.clamp(v, 0, 100))``), enums, defaults (``.prefault``), records
and arrays.  From then on MVU checks every update against it (``docs/variables.md``): each command is
applied to a copy of ``stat_data`` that must parse — its parsed form (clamped, coerced, defaults
filled) is what is kept, a copy that does not parse is refused and the state stays as it was — and
the record keeps the string ``没有用别管这个`` as its ``schema`` and no ``display_data``/``delta_data``.

The script is the card author's JavaScript, so only JavaScript runs it: QuickJS, as for ``<% %>``
templates (``templates_js``) — a fresh context per use with a memory limit and a CPU budget per use
and per beat for all its calls together (``script_budget``), no files, no network.  What the script
sees is our own code: ``z`` (``zod_lite.js``, the part of zod 4 such scripts use), ``_``
(``lodash_lite.js``) and the page around it (``mvu_schema.js``: ``registerMvuSchema``, MVU's
handling of the schema, inert ``$``/``eventOn``/``toastr``).  A module the script imports is
recognised by its URL (the MVU bundle, ``mvu_zod.js``, zod, lodash) and never fetched.  A script that
fails is named in a warning and registers nothing; with no schema registered MVU's classic rules apply.
A script that runs out of CPU or memory is a failure like any other, said in those words; so is an
answer from the engine that is not what our own code gives back (a script can change the page it runs
in): not text, not JSON, nested or sized past ``bounds``' limits.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from importlib.resources import files
from typing import Any

import msgspec

from peargarden.variables.bounds import TooLarge, check_value, problem
from peargarden.variables.commands import Command
from peargarden.variables.jsvalues import UNDEFINED, from_json, json_stringify
from peargarden.variables.schema_script import SchemaScript as SchemaScript
from peargarden.variables.schema_script import registering_scripts
from peargarden.variables.schema_script import script_body as script_body
from peargarden.variables.script_budget import OutOfTime, ScriptBudget, ScriptUse
from peargarden.variables.yaml_load import YamlError, load

MEMORY_LIMIT_BYTES = 64 * 1024 * 1024
TIME_LIMIT_SECONDS = 2.0  # evaluate()'s limit (the schema's uses go by their ScriptBudget)
_MAX_JOBS = 10_000
_MAX_WARNINGS = 50  # a script can make its page say anything, but not without end
_WARNING_CHARS = 500
_LIBRARIES = ("lodash_lite.js", "zod_lite.js", "mvu_schema.js")


@cache
def _library() -> str:
    """The three JavaScript files every run starts with (read once, from this package)."""
    folder = files(__package__)
    return "\n;\n".join(folder.joinpath(name).read_text(encoding="utf-8") for name in _LIBRARIES)


class SchemaRun(msgspec.Struct):
    """What one use of the schema did: whether any schema was registered, and what to say."""

    registered: bool
    warnings: list[str] = msgspec.field(default_factory=list)


def _yaml_parse(text: str) -> str:
    # Called from JavaScript: it must answer, never raise (an exception would not cross back).
    try:
        value = load(text)
        check_value(value)
        return json_stringify({"ok": True, "value": value}) or '{"ok": true}'
    except (YamlError, TooLarge, RecursionError, ValueError) as error:
        return json.dumps({"ok": False, "error": str(error)}, ensure_ascii=False)


def _yaml_answers(commands: Sequence[Command]) -> dict[str, Any]:
    """What YAML reads of each text value of *commands* (as MVU's command parser may ask for it),
    read here: QuickJS cannot call into Python while a time limit is set, so ``[温热, 香]`` — a value
    only YAML reads — was kept as its text.  Bounded like the rest: a value past the bounds is
    refused with YAML's own error, as the JavaScript side would have got it."""
    answers: dict[str, Any] = {}
    for command in commands:
        for arg in command.args:
            if isinstance(arg, str) and arg.strip() and arg.strip() not in answers:
                answers[arg.strip()] = json.loads(_yaml_parse(arg.strip()))
    return answers


def _command_json(command: Command) -> dict[str, Any]:
    return {
        "type": command.type,
        "full_match": command.full_match,
        "args": [None if arg is UNDEFINED else arg for arg in command.args],
        "undefined": [index for index, arg in enumerate(command.args) if arg is UNDEFINED],
    }


class MvuSchema(msgspec.Struct, frozen=True):
    """The schema scripts of a card (and its preset), in the order TavernHelper runs them, and the
    CPU *budget* they share (the beat's: ``ScriptBudget``).

    Every method starts a fresh QuickJS context, runs the scripts in it (they register their
    schemas) and then does one of MVU's steps; nothing survives from one call to the next.
    """

    scripts: tuple[SchemaScript, ...]
    budget: ScriptBudget
    memory_limit: int = MEMORY_LIMIT_BYTES

    def check(self) -> SchemaRun:
        """Only run the scripts: whether they register a schema here, and the failures named."""
        return self._run("__pear.result({})", {})[0]

    def initialized(self, variables: dict[str, Any], swipe_id: int) -> SchemaRun:
        """After ``[initvar]`` seeding of one greeting swipe: ``stat_data`` parsed (in place)."""
        run, out = self._run(
            "__pear.result({variables: __pear.initialized(__input.variables, __input.swipe)})",
            {"variables": {"stat_data": variables.get("stat_data", UNDEFINED)}, "swipe": swipe_id},
        )
        if run.registered and isinstance(out.get("variables"), dict):
            variables["stat_data"] = out["variables"].get("stat_data", UNDEFINED)
        return run

    def apply_commands(self, variables: dict[str, Any], commands: Sequence[Command]) -> SchemaRun:
        """An update's commands, each checked against the schema (``stat_data`` changed in place)."""
        script = (
            "__input.commands.forEach(c => c.undefined.forEach(i => { c.args[i] = undefined; }));"
            "__pear.yamlKnown(__input.yaml);"
            "__pear.result({variables: __pear.applyCommands(__input.variables, __input.commands)})"
        )
        given = {
            "variables": {"stat_data": variables.get("stat_data")},
            "commands": [_command_json(command) for command in commands],
            "yaml": _yaml_answers(commands),
        }
        run, out = self._run(script, given)
        if run.registered and isinstance(out.get("variables"), dict):
            variables["stat_data"] = out["variables"].get("stat_data", UNDEFINED)
        return run

    def _run(self, step: str, given: dict[str, Any]) -> tuple[SchemaRun, dict[str, Any]]:
        import quickjs

        if self.budget.exhausted:
            return self._not_run(self.budget.beat_used_up()), {}
        use = self.budget.use()
        context = quickjs.Context()
        context.set_memory_limit(self.memory_limit)
        context.add_callable("__yaml_parse", _yaml_parse)
        warnings: list[str] = []
        try:
            use.call(context.set_time_limit, lambda: context.eval(_library()))
            use.call(context.set_time_limit, lambda: context.eval(_IMPORT))
        except (quickjs.JSException, quickjs.StackOverflow, OutOfTime) as error:  # our own code
            if isinstance(error, OutOfTime) or str(error).startswith("InternalError: interrupted"):
                return self._not_run(use.why()), {}  # what was left of the budget did not cover it
            return SchemaRun(False, [f"变量结构沙箱无法启动：{_failure(error, use, self.memory_limit)}"]), {}
        for script in self.scripts:
            failure = self._script(context, script, use)
            if failure:
                warnings.append(f"变量结构脚本「{script.name}」运行失败（没有生效）：{failure}")
            if failure and use.left() <= 0:  # the rest would find no time either: one line is enough
                return SchemaRun(False, warnings), {}
        code = f"var __input = __pear.input(__input_json); {step}"
        try:
            context.set("__input_json", json_stringify(given) or "{}")
            text = use.call(context.set_time_limit, lambda: context.eval(code))
        except (quickjs.JSException, quickjs.StackOverflow, OutOfTime, TypeError) as error:
            # The step runs what the scripts registered (their transforms, refinements): theirs to name.
            names = "".join(f"「{script.name}」" for script in self.scripts)
            reason = _failure(error, use, self.memory_limit)
            warnings.append(f"变量结构{names}运行失败（variables unchanged）：{reason}")
            return SchemaRun(False, warnings), {}
        out, unreadable = _read_result(text)
        if unreadable:
            warnings.append(f"变量结构的结果读不出来（variables unchanged）：{unreadable}")
            return SchemaRun(False, warnings), {}
        failed = out.get("failed")
        for name, reason in failed.items() if isinstance(failed, dict) else ():
            message = f"变量结构脚本「{_line(name)}」运行失败（没有生效）：{_reason(reason, self.memory_limit)}"
            if message not in warnings:
                warnings.append(message)
        said = out.get("warnings")
        warnings += [_line(item) for item in (said if isinstance(said, list) else [])[:_MAX_WARNINGS]]
        return SchemaRun(bool(out.get("registered")), warnings), out

    def _not_run(self, why: str) -> SchemaRun:
        names = "".join(f"「{script.name}」" for script in self.scripts)
        return SchemaRun(False, [f"变量结构脚本{names}没有运行：{why}（这一步按 MVU 的经典规则）"])

    def _script(self, context: Any, script: SchemaScript, use: ScriptUse) -> str | None:
        import quickjs

        name = json.dumps(script.name, ensure_ascii=False)
        defined = "".join(
            f"__pear.define({json.dumps(url)}, async () => {{\n{script_body(source)}\n}});\n"
            for url, source in script.modules
        )
        wrapped = f"{defined}__pear.run({name}, async () => {{\n{script_body(script.code)}\n}});"
        try:
            use.call(context.set_time_limit, lambda: context.eval(wrapped))
            for _ in range(_MAX_JOBS):
                if not use.call(context.set_time_limit, context.execute_pending_job):
                    break
        except (quickjs.JSException, quickjs.StackOverflow, OutOfTime, TypeError) as error:
            return _failure(error, use, self.memory_limit)
        return None


# What a script's dynamic ``import(url)`` becomes: answered at once from the recognised modules.
_IMPORT = "var __pear_import = (url) => Promise.resolve(__pear.load(url));"


def _read_result(text: Any) -> tuple[dict[str, Any], str | None]:
    """The engine's answer read back (``{}`` and what is wrong with it when it cannot be)."""
    if not isinstance(text, str):
        return {}, f"不是文本（{type(text).__name__}）"
    try:
        raw = json.loads(text)
    except RecursionError:
        return {}, "嵌套太深"
    except ValueError:
        return {}, "不是 JSON"
    if not isinstance(raw, dict):
        return {}, "不是对象"
    variables = raw.get("variables")
    stat = variables.get("stat_data") if isinstance(variables, dict) else None
    too_large = problem(stat) or problem(raw, record=True)
    if too_large:
        return {}, f"变量{too_large}"
    return from_json(raw), None


def _line(value: Any) -> str:
    text = str(value).strip()
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= _WARNING_CHARS else first[:_WARNING_CHARS] + "…"


def _out_of_memory(text: str, memory_limit: int) -> str | None:
    # QuickJS throws null, not its "out of memory" error, when even that error could not be made.
    if text in ("", "null", "内存用完了（out of memory）") or text.startswith("InternalError: out of memory"):
        return f"内存用完了（上限 {memory_limit // (1024 * 1024)} MB）"
    return None


def _reason(reason: Any, memory_limit: int) -> str:
    """A failure recorded in JavaScript, in words."""
    text = _line(reason)
    return _out_of_memory(text, memory_limit) or text


def _failure(error: BaseException, use: ScriptUse, memory_limit: int) -> str:
    """Why a call into the engine failed, in one line."""
    if isinstance(error, OutOfTime):
        return f"CPU 时间用完了（{error}），已停止"
    text = str(error).strip()
    if isinstance(error, TypeError):  # the binding could not hand a value back (a rope string …)
        return f"引擎交回了读不出的值（{_line(text)}）"
    if text.startswith("InternalError: interrupted"):
        return f"CPU 时间用完了（{use.why()}），已停止"
    if type(error).__name__ == "StackOverflow":
        return "调用层次太深（stack overflow）"
    return _out_of_memory(text, memory_limit) or _line(text)


def evaluate(expression: str, *, time_limit: float = TIME_LIMIT_SECONDS) -> Any:
    """The JSON value of one JavaScript *expression* in the schema sandbox (``z``, ``_`` and the page
    a schema script sees): how the zod and lodash subsets are checked.  A failure raises ``ValueError``
    with the JavaScript error's first line."""
    import quickjs

    context = quickjs.Context()
    context.set_memory_limit(MEMORY_LIMIT_BYTES)
    context.set_time_limit(time_limit)
    context.add_callable("__yaml_parse", _yaml_parse)
    try:
        context.eval(_library())
        text = context.eval(f"JSON.stringify(({expression}))")
    except (quickjs.JSException, quickjs.StackOverflow) as error:
        raise ValueError(_first_line(error)) from None
    return UNDEFINED if text is None else from_json(json.loads(str(text)))


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or "out of memory"
    return "out of memory" if text == "null" else text.splitlines()[0]


def schema_of(
    scripts: Iterable[tuple[str, str]], budget: ScriptBudget, sources: Callable[[str], str | None] | None = None
) -> MvuSchema | None:
    """The schema of the scripts given as ``(name, code)`` (enabled ones, in TavernHelper's order),
    spending *budget*: ``None`` when none of them registers one (:func:`.schema_script.registering_scripts`;
    *sources*: the card's remote modules kept in the data folder)."""
    found = registering_scripts(scripts, sources)
    return MvuSchema(found, budget) if found else None
