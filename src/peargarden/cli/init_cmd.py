"""``pear init``: create the data folder and seed the default content."""

from __future__ import annotations

import typer

from peargarden.app.library import init_home

from ._app import app, state


@app.command("init")
def init_command() -> None:
    """Create the data folder with its defaults; never overwrites what is already there."""

    home = state.home
    created = init_home(home)
    if created:
        for path in created:
            shown = home.root if path == home.root else path.relative_to(home.root).as_posix()
            typer.echo(f"created {shown}")
    else:
        typer.echo(f"{home.root} is already set up")
