"""The ``pear`` command line: a thin front over the app services.

Each command group lives in its own module and registers itself on :data:`app`.
Errors from the program (:class:`PearError`) are printed as one line on stderr with a non-zero exit.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import click
import typer

from peargarden.errors import PearError

from ._app import app


def _register_command_groups() -> None:
    """Import every ``cli/*_cmd.py``: each registers its commands on :data:`app` when imported.

    Command modules are discovered, not listed, so adding a command group never means editing this
    file (do not add imports here).
    """
    import importlib
    import pkgutil

    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name.endswith("_cmd"):
            importlib.import_module(f"{__name__}.{module.name}")


_register_command_groups()


def _click_modules() -> tuple[Any, ...]:
    """click's exception module(s): typer >= 0.29 ships its own copy of click as ``typer._click``."""
    modules: list[Any] = [click.exceptions]
    with contextlib.suppress(ImportError):
        import typer._click.exceptions as vendored

        modules.append(vendored)
    return tuple(modules)


_CLICK = _click_modules()
_ABORT = tuple(m.Abort for m in _CLICK if hasattr(m, "Abort"))
_CLICK_ERROR = tuple(m.ClickException for m in _CLICK if hasattr(m, "ClickException"))
_EXIT = tuple(m.Exit for m in _CLICK if hasattr(m, "Exit"))


def main(argv: list[str] | None = None) -> None:
    command = typer.main.get_command(app)
    try:
        # Without standalone mode click returns the code of a typer.Exit instead of raising it.
        code = command.main(args=argv, prog_name="pear", standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except PearError as error:
        print(f"pear: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    except _ABORT:
        print("pear: aborted", file=sys.stderr)
        sys.exit(130)
    except _CLICK_ERROR as error:
        error.show()
        sys.exit(error.exit_code)
    except _EXIT as done:
        sys.exit(done.exit_code)
    except KeyboardInterrupt:
        print("pear: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)


__all__ = ["app", "main"]
