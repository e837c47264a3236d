"""The tree a parsed STscript becomes, and the two errors SillyTavern names.

A script is a root :class:`Closure`: a list of :class:`Executor` (one per command, in order), each
with named and unnamed arguments whose values are text or nested closures.  The tree is built once
and never changed by a run: a run copies the scopes it needs (``scope.Scope``), so a closure stored
in a variable or run by a loop starts the same way every time.
"""

from __future__ import annotations

from typing import Literal

import msgspec

# What an executor is: a command, ``/break`` (leaves the loop or closure) or ``/breakpoint`` (a
# debugger stop, which runs as nothing outside the editor's debugger).
ExecutorKind = Literal["command", "break", "breakpoint"]


class NamedArgument(msgspec.Struct, eq=False):
    name: str
    value: str | Closure | None  # None: ``name=`` with nothing after it
    start: int = 0
    end: int = 0


class UnnamedArgument(msgspec.Struct, eq=False):
    value: str | Closure
    start: int = 0
    end: int = 0


class Executor(msgspec.Struct, eq=False):
    name: str
    start: int
    kind: ExecutorKind = "command"
    named: list[NamedArgument] = msgspec.field(default_factory=list)
    unnamed: list[UnnamedArgument] = msgspec.field(default_factory=list)
    # False after ``||``: the command does not receive the previous command's result.
    inject_pipe: bool = True
    end: int = 0
    flags: frozenset[str] = frozenset()


class Closure(msgspec.Struct, eq=False):
    """``{: … :}`` (or the whole script): its parameters, its commands and its text."""

    full_text: str
    parameters: list[NamedArgument] = msgspec.field(default_factory=list)
    executors: list[Executor] = msgspec.field(default_factory=list)
    raw_text: str = ""
    execute_now: bool = False  # ``{: … :}()``: run where it stands, its result is the value

    def __str__(self) -> str:
        # How JavaScript prints a closure (``String(closure)``), e.g. when a closure is joined into text.
        return "[Closure]()" if self.execute_now else "[Closure]"


def _line(text: str, index: int) -> int:
    return text[:index].count("\n")


def _column(text: str, index: int) -> int:
    return len(text[:index].split("\n")[-1])


def _hint(text: str, index: int) -> str:
    """The excerpt SillyTavern shows under a script error: up to three lines before the error's line,
    numbered, then a row of carets under the position."""
    line = _line(text, index)
    number_width = len(str(line))
    line_start = index
    start = index
    lines_seen = 0
    steps = 0
    while steps < 10000 and lines_seen < 3 and start >= 0:
        if 0 <= start < len(text) and text[start] == "\n":
            lines_seen += 1
        if lines_seen == 0:
            line_start -= 1
        steps += 1
        start -= 1
    if 0 <= start + 1 < len(text) and text[start + 1] == "\n":
        start += 1
    end = index
    steps = 0
    while steps < 10000 and not (0 <= end < len(text) and text[end] == "\n"):
        steps += 1
        end += 1
    excerpt = text[max(start + 1, 0) : max(end - 1, 0)].split("\n")
    number = line - len(excerpt) + 1
    rows = []
    tab_offset = 0
    for row in excerpt:
        label = str(number).rjust(number_width)
        number += 1
        untabbed = row.replace("\t", "    ")
        tab_offset = len(untabbed) - len(row)
        rows.append(f"{label}:  {untabbed}")
    rows.append(" " * (index - line_start + number_width + 1 + tab_offset) + "^^^^^")
    return "\n".join(rows)


class ScriptError(Exception):
    """An error SillyTavern reports with the script's line, column and an excerpt."""

    kind = "Error"

    def __init__(self, message: str, text: str, index: int) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.index = index

    @property
    def line(self) -> int:
        return _line(self.text, self.index)

    @property
    def column(self) -> int:
        return _column(self.text, self.index)

    @property
    def hint(self) -> str:
        return _hint(self.text, self.index)

    def toast_text(self) -> str:
        """The error toast's text as a reader sees it (message, position, excerpt, click hint)."""
        return f"{self.message}\nLine: {self.line} Column: {self.column}\n{self.hint}\n\nClick to see details"


class ParserError(ScriptError):
    """``SlashCommandParserError``: the script cannot be read."""

    kind = "SlashCommandParserError"


class ExecutionError(ScriptError):
    """``SlashCommandExecutionError``: a command failed while the script ran."""

    kind = "SlashCommandExecutionError"

    def __init__(self, message: str, text: str, index: int, *, command: str, cause: BaseException | None = None):
        super().__init__(message, text, index)
        self.command = command
        self.cause = cause


__all__ = [
    "Closure",
    "ExecutionError",
    "Executor",
    "ExecutorKind",
    "NamedArgument",
    "ParserError",
    "ScriptError",
    "UnnamedArgument",
]
