"""The root Typer application: its group, which imports each command on first use, and the shared options."""

from __future__ import annotations

import gc
import importlib
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from ._commands import COMMANDS
from ._help import HOME_HELP, PROG, ROOT_HELP
from ._state import state, use_home


def load_command(name: str) -> Any:
    """Import the module of ``name`` and return its click command (a group for a sub-app).

    The module registers the command on the root :data:`app` as it is imported; converting the root again
    (typer's public :func:`typer.main.get_command`) yields it as click sees it, with the shared options.
    """
    importlib.import_module(f"{__package__}.{COMMANDS[name].module}")
    command = root_command().commands.get(name)
    if command is None:
        raise LookupError(f"peargarden.cli.{COMMANDS[name].module} does not define the command {name!r}")
    return command


_converted: tuple[int, TyperGroup] | None = None


def root_command() -> TyperGroup:
    """The root :data:`app` as click sees it, converted again only when a command module was imported since.

    typer converts every registered command (each function's signature and annotations) on each
    :func:`typer.main.get_command`: about 30 ms once all command modules are loaded, as in a process
    that runs many ``pear`` command lines (``kit.cli.pear_in_process`` in the tests).  A click command
    keeps no state between runs, so the converted tree is reused.
    """
    global _converted
    registered = len(app.registered_commands) + len(app.registered_groups)
    if _converted is None or _converted[0] != registered:
        root = typer.main.get_command(app)
        assert isinstance(root, TyperGroup)
        _converted = (registered, root)
    return _converted[1]


class LazyCommands(TyperGroup):
    """The root group: commands come from :data:`COMMANDS`, each imported on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = load_command(cmd_name)
            if state.freeze_after_import:  # the modules are loaded for good (see _guard.collect_less)
                gc.freeze()
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        # click's own listing would resolve (import) every command to read its help.
        with formatter.section("Commands"):
            formatter.write_dl([(name, entry.summary) for name, entry in COMMANDS.items()])


app = typer.Typer(
    name=PROG,
    help=ROOT_HELP,  # `pear --help` prints these strings without typer (._help): one source for both
    cls=LazyCommands,
    no_args_is_help=True,
    # Plain click help: rich's would import rich (and every command, to read its help) for `pear --help`.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root(
    home: Path | None = typer.Option(None, "--home", help=HOME_HELP, show_default=False),
) -> None:
    use_home(home)  # the same function opens the folder when ._light reads the command line


# `state` is _state's: the command modules take it from here with the root app.
__all__ = ["LazyCommands", "app", "load_command", "root_command", "state"]
