"""``pear init``: create the data folder and seed the default content."""

from __future__ import annotations

import typer

from ._app import app, state


@app.command("init")
def init_command() -> None:
    """Create the data folder with its defaults; never overwrites what is already there."""
    from peargarden.workspace.seed import seed_home

    home = state.home
    created = seed_home(home)
    if created:
        for path in created:
            typer.echo(f"created {path.relative_to(home.root)}")
    else:
        typer.echo(f"{home.root} is already set up")
