"""``pear export``: a card or a lorebook as SillyTavern files."""

from __future__ import annotations

from pathlib import Path

import typer

from peargarden.errors import BadInput
from peargarden.workspace import atomic
from peargarden.workspace.exporter import export_card, export_lorebook
from peargarden.workspace.library import lorebook_name

from ._app import app, state

export_app = typer.Typer(
    help="Export a card (PNG, JSON, CHARX) or a lorebook (SillyTavern JSON).", no_args_is_help=True
)
app.add_typer(export_app, name="export")


def _target(out: Path, default_name: str) -> Path:
    """``-o`` may name a file or an existing folder (then the file is named after the card/book)."""
    return out / default_name if out.is_dir() else out


def _write(path: Path, data: bytes) -> None:
    if not path.parent.is_dir():
        raise BadInput("输出文件夹不存在（output folder does not exist）", path=path.parent)
    try:
        atomic.write_bytes(path, data)
    except OSError as exc:
        raise BadInput(f"无法写入：{exc.strerror}", path=path) from None


@export_app.command("card")
def export_card_command(
    name: str = typer.Argument(..., help="Card name (its folder under cards/)."),
    fmt: str = typer.Option("png", "--format", help="png | json | charx"),
    spec: str | None = typer.Option(None, "--spec", help="v2 | v3 (default: the card's own version)"),
    out: Path = typer.Option(..., "-o", "--output", help="Output file, or a folder to put it in."),
) -> None:
    """Export a card; unknown fields and extensions are kept."""
    folder, data = export_card(state.home, name, fmt, spec)
    target = _target(out, f"{folder.folder}.{fmt}")
    _write(target, data)
    typer.echo(f"已导出卡「{folder.folder}」→ {target}")


@export_app.command("lorebook")
def export_lorebook_command(
    name: str = typer.Argument(..., help="Lorebook name (file name in library/lorebooks/ without .json)."),
    out: Path = typer.Option(..., "-o", "--output", help="Output file, or a folder to put it in."),
) -> None:
    """Export a library lorebook as SillyTavern standalone world info JSON."""
    data = export_lorebook(state.home, name)
    target = _target(out, f"{lorebook_name(name)}.json")
    _write(target, data)
    typer.echo(f"已导出世界书「{lorebook_name(name)}」→ {target}")
