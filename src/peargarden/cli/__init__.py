"""The ``pear`` command line: a thin front over the app services.

The commands are listed in :mod:`._commands`; each one's module is imported only when that command
runs, so a light command (``pear cards``) does not load the chat, the web server or the model libraries.
``pear --help`` alone does not even load typer: :mod:`._help` writes the same text from the table.
Everything else runs through typer in :mod:`._run`.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """The ``pear`` command; *argv* given: a call from inside another program (the tests), which
    keeps its own garbage-collector settings."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--help"]:
        from ._help import help_width, root_help

        try:
            print(root_help(help_width()))
            sys.stdout.flush()
        except BrokenPipeError:
            sys.exit(0)
        return
    from ._run import run

    run(args, own_process=argv is None)


def __getattr__(name: str) -> object:
    # `peargarden.cli.app` (the root typer app) without importing typer for `pear --help`; nor `typing`
    # for the annotation (with dataclasses, typing was a third of what `pear --help` imported).
    if name == "app":
        from ._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
