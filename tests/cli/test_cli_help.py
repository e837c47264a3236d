"""``pear --help`` is printed without typer (``cli/_help.py``); it must be the text typer prints.

typer's own rendering of the root group is the reference: the fast text is compared with it at every
width the help can be printed at, and with ``$COLUMNS`` the way a shell sets it.  A change to the
root group (an option, a command, a summary) that the fast path does not follow fails here.
"""

from __future__ import annotations

import pytest
import typer

from peargarden.cli import main
from peargarden.cli._app import app
from peargarden.cli._help import help_width, root_help


def _typer_help(width: int) -> str:
    """The root group's help as typer writes it for a formatter of ``width`` columns."""
    command = typer.main.get_command(app)
    with command.make_context("pear", ["--home", "x"], terminal_width=width) as context:
        return command.get_help(context)


# help_width() gives 50 to 78 (at most 80 columns less 2, at least 50): every width it can return.
@pytest.mark.parametrize("width", range(50, 79))
def test_the_fast_help_is_typers_help_at_every_width(width: int) -> None:
    assert root_help(width) == _typer_help(width)


def _typer_main_help(capsys: pytest.CaptureFixture[str]) -> str:
    """What the typer path prints for ``--help`` (the path every other command line takes)."""
    from peargarden.cli._run import run

    try:
        run(["--help"])
    except SystemExit as done:
        assert done.code in (0, None)
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", ["", "30", "52", "66", "80", "81", "200", "junk", "-5"])
def test_pear_help_matches_typer_for_any_columns(
    columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    main(["--help"])
    fast = capsys.readouterr().out
    assert fast == _typer_main_help(capsys)
    assert fast.startswith("Usage: pear [OPTIONS] COMMAND [ARGS]...\n")


def test_help_width_follows_the_terminal_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setenv("LINES", "24")
    assert help_width() == 58
    monkeypatch.setenv("COLUMNS", "300")
    assert help_width() == 78  # at most 80 columns, less the 2 click keeps free
    monkeypatch.setenv("COLUMNS", "20")
    assert help_width() == 50  # never narrower than 50
