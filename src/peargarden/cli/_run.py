"""Running a ``pear`` command line through typer, and turning what it raises into an exit code
(:mod:`._guard`; click's own exceptions here).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import typer

from ._app import root_command
from ._guard import collect_less, guarded


def _click_exception_modules() -> list[ModuleType]:
    """The loaded copies of click's exception module.

    typer >= 0.26 ships its own click as ``typer._click``; the real click is only loaded when a command
    uses it (``click.edit``), and then its exceptions must be caught too.  A copy that is not loaded
    cannot have raised anything, so nothing is imported here.
    """
    names = ("typer._click.exceptions", "click.exceptions")
    return [module for module in map(sys.modules.get, names) if module is not None]


def click_exit_code(error: Exception) -> int | None:
    """The exit code for one of click's control-flow exceptions (after printing it); None for others."""
    loaded = _click_exception_modules()
    aborts = (typer.Abort, *(m.Abort for m in loaded if hasattr(m, "Abort")))
    exits = (typer.Exit, *(m.Exit for m in loaded if hasattr(m, "Exit")))
    if isinstance(error, aborts):
        print("pear: aborted", file=sys.stderr)
        return 130
    if isinstance(error, tuple(m.ClickException for m in loaded)):
        shown: Any = error  # the class comes from a module found at run time
        shown.show()
        return int(shown.exit_code)
    if isinstance(error, exits):
        return int(error.exit_code)
    return None


def run(argv: list[str] | None, *, own_process: bool = False) -> None:
    """Run one command line.  *own_process*: this process is the command (``pear …``): the garbage
    collector is set for a short-lived program over a lot of data (see :func:`._guard.collect_less`)."""
    if own_process:
        collect_less()
    command = root_command()

    def through_click() -> None:
        # Without standalone mode click returns the code of a typer.Exit instead of raising it.
        code = command.main(args=argv, prog_name="pear", standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)

    guarded(through_click, click_exit_code)
