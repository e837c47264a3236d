"""The ``pear`` command line: a thin front over the app services.

Each command group lives in its own module and registers itself on :data:`app`.
Errors from the program (:class:`PearError`) are printed as one line on stderr with a non-zero exit.
"""

from __future__ import annotations

import sys

import click
import typer

from peargarden.errors import PearError

from ._app import app

# Command groups register themselves on import.
from . import init_cmd  # noqa: F401  isort: skip
from . import tavern_cmd  # noqa: F401  isort: skip
from . import cards_cmd, export_cmd, import_cmd, lorebook_cmd  # noqa: F401  isort: skip
from . import vault_cmd  # noqa: F401  isort: skip
from . import sandbox_cmd  # noqa: F401  isort: skip
from . import chat_cmd, sessions_cmd  # noqa: F401  isort: skip


def main(argv: list[str] | None = None) -> None:
    command = typer.main.get_command(app)
    try:
        command.main(args=argv, prog_name="pear", standalone_mode=False)
    except PearError as error:
        print(f"pear: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        print("pear: aborted", file=sys.stderr)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except KeyboardInterrupt:
        print("pear: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)


__all__ = ["app", "main"]
