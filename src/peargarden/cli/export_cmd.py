"""``pear export``: a card or a lorebook as SillyTavern files."""

from __future__ import annotations

from pathlib import Path

import typer

from peargarden.app.library import export_card_file, export_lorebook_file

from ._app import app, state

export_app = typer.Typer(
    help="Export a card (PNG, JSON, CHARX) or a lorebook (SillyTavern JSON).", no_args_is_help=True
)
app.add_typer(export_app, name="export")


@export_app.command("card")
def export_card_command(
    name: str = typer.Argument(..., help="Card name (its folder under cards/)."),
    fmt: str = typer.Option("png", "--format", help="png | json | charx"),
    spec: str | None = typer.Option(None, "--spec", help="v2 | v3 (default: the card's own version)"),
    out: Path = typer.Option(..., "-o", "--output", help="Output file, or a folder to put it in."),
) -> None:
    """Export a card; unknown fields and extensions are kept."""
    folder, target = export_card_file(state.home, name, fmt, spec, out)
    typer.echo(f"已导出卡「{folder}」→ {target}")


@export_app.command("lorebook")
def export_lorebook_command(
    name: str = typer.Argument(..., help="Lorebook name (file name in library/lorebooks/ without .json)."),
    out: Path = typer.Option(..., "-o", "--output", help="Output file, or a folder to put it in."),
) -> None:
    """Export a library lorebook as SillyTavern standalone world info JSON."""
    book, target = export_lorebook_file(state.home, name, out)
    typer.echo(f"已导出世界书「{book}」→ {target}")
