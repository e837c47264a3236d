"""``pear --help`` without loading typer: the root help text, written from the command table.

typer (with the copy of click it ships) costs about four bare interpreter starts to import, and it
would then also load pydantic to convert the root ``--home`` option; the help of the root group needs
none of it.  So :func:`peargarden.cli.main` prints :func:`root_help` itself when the only argument is
``--help``; every other command line still goes through typer.

The text must be the one typer prints (``docs/cli.md`` and users' scripts see it), so this module
lays it out the way click's help formatter does: a usage line, the description, then the options
and the commands as two-column lists whose second column is wrapped at spaces, a word too long for
the column cut where the column ends.  ``tests/cli/test_cli_help.py`` compares the two texts at many
widths, so the layout cannot drift from typer's without a failing test.  The strings themselves live
here and :mod:`._app` declares the root group from them.

Only ``os``, ``sys`` and ``textwrap`` are imported: ``shutil`` (for the terminal size) would cost
more than the rest of this module.
"""

from __future__ import annotations

import os
import sys
import textwrap

from ._commands import COMMANDS

PROG = "pear"
ROOT_HELP = "梨园 Pear Garden — agentic role-play, compatible with SillyTavern content."
HOME_HELP = "Data folder (default: $PEARGARDEN_HOME or ~/.peargarden)."
HOME_METAVAR = "<path>"  # what typer writes for a Path option
HELP_OPTION_HELP = "Show this message and exit."  # click's own wording for --help

_INDENT = 2  # each section's body is indented by two spaces
_COLUMN_GAP = 2  # spaces between the two columns of a list
_FIRST_COLUMN_MAX = 30  # a longer first column puts its text on the next line


class _Wrapper(textwrap.TextWrapper):
    """Wraps at spaces; a word longer than the line is cut where the line ends (no hyphen rules)."""

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
        room = max(width - cur_len, 1)
        word = reversed_chunks[-1]
        cur_line.append(word[:room])
        reversed_chunks[-1] = word[room:]


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    wrapper = _Wrapper(width, initial_indent=indent, subsequent_indent=indent, replace_whitespace=False)
    return wrapper.wrap(text.expandtabs())


def _two_columns(rows: list[tuple[str, str]], width: int) -> list[str]:
    first_width = min(max(len(first) for first, _ in rows), _FIRST_COLUMN_MAX) + _COLUMN_GAP
    text_width = max(width - first_width - 2, 10)
    lines: list[str] = []
    for first, second in rows:
        head = " " * _INDENT + first
        if len(first) <= first_width - _COLUMN_GAP:
            head += " " * (first_width - len(first))
        else:
            lines.append(head)
            head = " " * (first_width + _INDENT)
        wrapped = _wrap(second, text_width) or [""]
        lines.append(head + wrapped[0])
        lines.extend(" " * (first_width + _INDENT) + line for line in wrapped[1:])
    return lines


def root_help(width: int) -> str:
    """The text of ``pear --help`` for a help ``width`` (columns), without the final newline."""
    usage = _wrap("[OPTIONS] COMMAND [ARGS]...", width, indent=" " * len(f"Usage: {PROG} "))
    lines = [f"Usage: {PROG} " + usage[0].lstrip(), *usage[1:], ""]
    lines += _wrap(ROOT_HELP, width, indent=" " * _INDENT)
    lines += ["", "Options:"]
    lines += _two_columns([(f"--home {HOME_METAVAR}", HOME_HELP), ("--help", HELP_OPTION_HELP)], width)
    lines += ["", "Commands:"]
    lines += _two_columns([(name, entry.summary) for name, entry in COMMANDS.items()], width)
    return "\n".join(lines)


def help_width() -> int:
    """The width click's help formatter would use: the terminal's (``$COLUMNS`` first), at most 80, less 2.

    Same rule as :func:`shutil.get_terminal_size` for the columns: a positive ``$COLUMNS`` wins (the
    terminal is then only asked when ``$LINES`` is unset or not positive, for the lines), then the
    terminal of stdout, then 80.
    """

    def positive(name: str) -> int:
        try:
            return max(int(os.environ.get(name, "0")), 0)
        except ValueError:
            return 0

    columns = positive("COLUMNS")
    if columns == 0 or positive("LINES") == 0:
        try:
            terminal = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            terminal = os.terminal_size((80, 24))
        if columns == 0:
            columns = terminal.columns or 80
    return max(min(columns, 80) - 2, 50)
