"""``pear chat`` and ``pear tavern assemble`` without typer, when their command line is a plain one.

Importing typer (with the click it ships) and converting the command's signature cost a hot command
~74 M instructions (~25-30 ms) before any work.  These two commands run often (a beat, a preview),
so :func:`read` reads their command line itself when it can read it exactly as typer would: the
root ``--home``, the command's known options as ``--opt value`` or ``--opt=value``, flags without a
value, a ``--`` at the end.  Anything else — ``--help`` anywhere, an unknown option, a flag given a
value, a missing value, a value its type refuses, a missing required option, an argument — returns
None and the line goes through typer as before, so every message, exit code and help text is still
typer's own.  Either way the same function does the work (:func:`._chat.chat`,
:func:`._assemble.assemble`, after :func:`._state.use_home`).

:data:`ROOT` and :data:`LIGHT` repeat what ``_app.py``, ``chat_cmd.py`` and ``tavern_cmd.py``
declare for typer; ``tests/cli/test_cli_light.py`` holds them equal to typer's converted click
commands (names, flag or value, type, default, required, multiple) and reads a set of command lines
both ways.  :func:`read` runs for every ``pear`` line, ``pear --help`` too: only modules the
interpreter has loaded already are imported here (not even ``pathlib``, fifteen modules with what
it loads; the data folder goes to :func:`._state.use_home` as its name).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys

FLAG, STR, INT, FLOAT, PATH = "flag", "str", "int", "float", "path"


class Option:
    """One option as typer declares it: its name on the command line, the parameter it fills, its kind."""

    __slots__ = ("default", "kind", "multiple", "name", "param", "required")

    def __init__(
        self,
        name: str,
        param: str,
        kind: str = STR,
        default: object = None,
        *,
        required: bool = False,
        multiple: bool = False,
    ) -> None:
        self.name = name
        self.param = param
        self.kind = kind
        self.default = False if kind == FLAG else default
        self.required = required
        self.multiple = multiple


class Command:
    """A hot command: the words that name it, and the typer-free function that does its work."""

    __slots__ = ("function", "module", "options", "words")

    def __init__(self, words: tuple[str, ...], module: str, function: str, options: tuple[Option, ...]) -> None:
        self.words = words
        self.module = module  # in peargarden.cli
        self.function = function
        self.options = {option.name: option for option in options}


ROOT = {"--home": Option("--home", "home", PATH)}

LIGHT = (
    Command(
        ("chat",),
        "_chat",
        "chat",
        (
            Option("--card", "card"),
            Option("--mode", "mode"),
            Option("--base-url", "base_url"),
            Option("--model", "model"),
            Option("--api-key-env", "api_key_env"),
            Option("--local-model", "local_model"),
            Option("--thinking", "thinking"),
            Option("--persona", "persona"),
            Option("--chat", "chat_id"),
            Option("--group", "group"),
            Option("--once", "once"),
            Option("--json", "as_json", FLAG),
            Option("--connect-timeout", "connect_timeout", FLOAT),
            Option("--first-byte-timeout", "first_byte_timeout", FLOAT),
            Option("--idle-timeout", "idle_timeout", FLOAT),
            Option("--total-timeout", "total_timeout", FLOAT),
            Option("--still-waiting", "still_waiting", FLOAT, 10.0),
        ),
    ),
    Command(
        ("tavern", "assemble"),
        "_assemble",
        "assemble",
        (
            Option("--card", "card", required=True),
            Option("--preset", "preset"),
            Option("--chat", "chat"),
            Option("--message", "message"),
            Option("--json", "as_json", FLAG),
            Option("--ledger", "ledger", FLAG),
            Option("--st-version", "st_version"),
            Option("--seed", "seed", INT),
        ),
    ),
)


class LightCall:
    """A command line :func:`read` could read: the data folder, the command, its parameters."""

    __slots__ = ("command", "home", "params")

    def __init__(self, home: str | None, command: Command, params: dict[str, object]) -> None:
        self.home = home
        self.command = command
        self.params = params

    def run(self, argv: list[str] | None, *, own_process: bool = False) -> None:
        """Do the command as :func:`._run.run` would (same errors, same exit codes); *argv* is
        already read, taken only to match ``run``'s call."""
        # Deferred: these load the app (and msgspec), which `pear --help` and the reading never need.
        from ._guard import collect_less, guarded
        from ._state import state, use_home

        if own_process:
            collect_less()

        def command() -> None:
            module = importlib.import_module(f"{__package__}.{self.command.module}")
            if state.freeze_after_import:  # as LazyCommands.get_command does once it imported one
                gc.freeze()
            use_home(self.home)
            getattr(module, self.command.function)(**self.params)

        guarded(command, _click_error)


def read(argv: list[str]) -> LightCall | None:
    """The command line as typer would read it, when it is a hot command's plain one; else None."""
    if "--help" in argv:
        return None
    rest = list(argv)
    root = _options(ROOT, rest, until_word=True)
    if root is None:
        return None
    for command in LIGHT:
        if tuple(rest[: len(command.words)]) == command.words:
            params = _options(command.options, rest[len(command.words) :], until_word=False)
            if params is None:
                return None
            home = root["home"]
            assert home is None or isinstance(home, str)
            return LightCall(home, command, params)
    return None


def _options(table: dict[str, Option], tokens: list[str], *, until_word: bool) -> dict[str, object] | None:
    """The parameters *tokens* give the options of *table* (defaults for the others), or None when
    typer would say something (or see something this reading does not take).  *until_word*: a group's
    options, which end at the first word (the command's name, left in *tokens*); else every token
    must be an option or its value, and ``--`` may only end the line."""
    given: dict[str, list[str | bool]] = {}
    while tokens:
        token = tokens[0]
        if until_word and not token.startswith("-"):
            break
        del tokens[0]
        if token == "--":
            if until_word or tokens:  # `pear -- chat`, or an argument after `--`: typer's to judge
                return None
            break
        if not token.startswith("-") or len(token) == 1:
            return None  # an argument: neither command takes one
        name, equals, value = token.partition("=")
        option = table.get(name)
        if option is None:
            return None
        if option.kind == FLAG:
            if equals:
                return None  # click: "Option '--json' does not take a value."
            given.setdefault(option.param, []).append(True)
            continue
        if not equals:
            if not tokens:
                return None  # click: "Option '--card' requires an argument."
            value = tokens.pop(0)  # as click does: the next word is the value, whatever it looks like
        given.setdefault(option.param, []).append(value)
    params: dict[str, object] = {}
    for option in table.values():
        values = given.get(option.param)
        if not values:
            if option.required:
                return None
            params[option.param] = [] if option.multiple else option.default
            continue
        converted = [_convert(option.kind, value) for value in values]
        if any(value is None for value in converted):
            return None
        params[option.param] = converted if option.multiple else converted[-1]  # click: the last one wins
    return params


def _convert(kind: str, value: str | bool) -> object:
    """*value* as typer hands it to the command; None when click's type would refuse it."""
    if kind in (FLAG, STR):
        return value
    assert isinstance(value, str)
    try:
        if kind == INT:
            return int(value)  # what click's INT calls
        if kind == FLOAT:
            return float(value)
    except ValueError:
        return None
    # A path (typer: its click path type, then pathlib.Path, which use_home makes of the name):
    # refused when it exists but cannot be read.
    try:
        os.stat(value)
    except ValueError:  # a NUL in the path: left to typer
        return None
    except OSError:  # not there (yet): the command makes it or says so
        return value
    return value if os.access(value, os.R_OK) else None


def _click_error(error: Exception) -> int | None:
    """A click exception (typer is loaded only when the command asked a question through its prompt)."""
    if "typer" not in sys.modules:
        return None
    from ._run import click_exit_code  # typer is loaded already: nothing more is

    return click_exit_code(error)
