"""The root Typer application and the options every command shares."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from peargarden.workspace.home import Home

from ._commands import LazyCommands

app = typer.Typer(
    name="pear",
    help="梨园 Pear Garden — agentic role-play, compatible with SillyTavern content.",
    cls=LazyCommands,
    no_args_is_help=True,
    # Plain click help: rich's would import rich (and every command, to read its help) for `pear --help`.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@dataclass
class State:
    home_override: Path | None = None

    @property
    def home(self) -> Home:
        return Home.resolve(self.home_override)


state = State()


@app.callback()
def _root(
    home: Path | None = typer.Option(
        None, "--home", help="Data folder (default: $PEARGARDEN_HOME or ~/.peargarden).", show_default=False
    ),
) -> None:
    state.home_override = home
