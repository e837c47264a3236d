"""A command's errors turned into one line and an exit code, whichever way its command line was read
(through typer, :mod:`._run`, or by :mod:`._light`).

Errors from the program (:class:`PearError`) are printed as one line on stderr with a non-zero exit.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable

from peargarden.errors import PearError, StorageError, storage_error

from ._state import state

# What else an error may be (click's exceptions, when typer ran): its exit code, or None to let it fly.
Other = Callable[[Exception], int | None]


def guarded(command: Callable[[], None], other: Other | None = None) -> None:
    """Run *command*; what it raises ends the process with a line and a status (``SystemExit``)."""
    try:
        command()
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
        exit_code = other(error) if other is not None else None
        if exit_code is None:
            raise
        sys.exit(exit_code)


def collect_less() -> None:
    """A command reads a chat of tens of thousands of messages into as many objects, and CPython's
    default collector (a young collection every 700 new objects, full ones as the heap grows) then
    walked every object of the process again and again: 0.2 – 0.3 s of a beat on a 20,000-message
    chat.  Young collections every 10,000 objects, and the modules a command imported moved out of
    the collector's sight once loaded (``gc.freeze`` once the command's module is imported): what it
    keeps walking is what the command made.  Reference counting frees everything as before; only
    cycles wait a little longer."""
    gc.set_threshold(10_000, 10, 10)
    state.freeze_after_import = True


def _home() -> str | None:
    """The data folder of this run, when it can be told (it names the folder a fix must apply to)."""
    try:
        return str(state.home.root)
    except Exception:  # HOME unset and no --home: the message names the folder of the failed write
        return None
