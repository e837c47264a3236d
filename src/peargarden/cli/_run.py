"""Running a ``pear`` command line through typer, and turning what it raises into an exit code.

Errors from the program (:class:`PearError`) are printed as one line on stderr with a non-zero exit.
"""

from __future__ import annotations

import gc
import sys
from types import ModuleType
from typing import Any

import typer

from peargarden.errors import PearError, StorageError, storage_error

from ._app import root_command, state


def _click_exception_modules() -> list[ModuleType]:
    """The loaded copies of click's exception module.

    typer >= 0.26 ships its own click as ``typer._click``; the real click is only loaded when a command
    uses it (``click.edit``), and then its exceptions must be caught too.  A copy that is not loaded
    cannot have raised anything, so nothing is imported here.
    """
    names = ("typer._click.exceptions", "click.exceptions")
    return [module for module in map(sys.modules.get, names) if module is not None]


def _click_exit_code(error: Exception) -> int | None:
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
    collector is set for a short-lived program over a lot of data (see :func:`_collect_less`)."""
    if own_process:
        _collect_less()
    command = root_command()
    try:
        # Without standalone mode click returns the code of a typer.Exit instead of raising it.
        code = command.main(args=argv, prog_name="pear", standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except PearError as error:
        if isinstance(error, StorageError):  # said again, naming the data folder in the fix
            error = storage_error(error, _home()) or error
        print(f"pear: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        print("pear: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as error:
        # A write no module turned into a StorageError: a read-only data folder or a full disk is
        # still one line.  Any other OSError is a bug and keeps its traceback.
        storage = storage_error(error, _home())
        if storage is None:
            raise
        print(f"pear: {storage}", file=sys.stderr)
        sys.exit(storage.exit_code)
    except Exception as error:
        exit_code = _click_exit_code(error)
        if exit_code is None:
            raise
        sys.exit(exit_code)


def _collect_less() -> None:
    """A command reads a chat of tens of thousands of messages into as many objects, and CPython's
    default collector (a young collection every 700 new objects, full ones as the heap grows) then
    walked every object of the process again and again: 0.2 – 0.3 s of a beat on a 20,000-message
    chat.  Young collections every 10,000 objects, and the modules a command imported moved out of
    the collector's sight once loaded (``gc.freeze`` in ``LazyCommands.get_command``): what it keeps
    walking is what the command made.  Reference counting frees everything as before; only cycles
    wait a little longer."""
    gc.set_threshold(10_000, 10, 10)
    state.freeze_after_import = True


def _home() -> str | None:
    """The data folder of this run, when it can be told (it names the folder a fix must apply to)."""
    try:
        return str(state.home.root)
    except Exception:  # HOME unset and no --home: the message names the folder of the failed write
        return None
