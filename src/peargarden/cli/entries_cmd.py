"""``pear entries``: the switchable entries (``#`` headings) of a prompt file."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from peargarden.app.cards import named_entries, switch_entry
from peargarden.errors import NotFound

from ._app import app, state

entries_app = typer.Typer(
    help="Entries of APPEND_SYSTEM.md / AGENTS.md: list them, switch one on or off.", no_args_is_help=True
)
app.add_typer(entries_app, name="entries")


def _resolve(file: str) -> Path:
    """FILE as given, or relative to the data folder (``cards/青梧/AGENTS.md``, ``APPEND_SYSTEM.md``)."""
    given = Path(file).expanduser()
    if given.is_file():
        return given
    inside = state.home.root / file
    if not given.is_absolute() and inside.is_file():
        return inside
    raise NotFound(f"没有这个文件：{file}")


@entries_app.command("list")
def list_command(
    file: str = typer.Argument(..., help="The prompt file (a path, or relative to the data folder)."),
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
) -> None:
    """List the entries of FILE: heading, level, on/off, owner (程序 entries end in a suffix)."""
    entries = named_entries(_resolve(file))
    if as_json:
        rows = [
            {
                "name": e.name,
                "title": e.title,
                "level": e.level,
                "enabled": e.enabled,
                "source": e.source,
                "book": e.book,
                "chars": len(e.content),
            }
            for e in entries
        ]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not entries:
        typer.echo("（没有条目）")
    for e in entries:
        mark = "开" if e.enabled else "关"
        owner = "" if e.source is None else "  〔程序〕"
        typer.echo(f"[{mark}] {'#' * e.level} {e.name}  （{len(e.content)} 字）{owner}")


def _switch(file: str, name: str, enabled: bool) -> None:
    try:
        changed = switch_entry(_resolve(file), name, enabled)
    except NotFound as error:
        raise NotFound(f"{error.message}（用 pear entries list 查看）") from None
    word = "打开" if enabled else "关闭"
    typer.echo(f"已{word}「{name}」" if changed else f"「{name}」本来就是{word}的")


@entries_app.command("on")
def on_command(
    file: str = typer.Argument(..., help="The prompt file."),
    name: str = typer.Argument(..., help="The heading text, suffix included."),
) -> None:
    """Switch an entry on (removes its <!-- --> wrapper lines)."""
    _switch(file, name, True)


@entries_app.command("off")
def off_command(
    file: str = typer.Argument(..., help="The prompt file."),
    name: str = typer.Argument(..., help="The heading text, suffix included."),
) -> None:
    """Switch an entry off (wraps it in <!-- --> lines; it stays in the file, never sent)."""
    _switch(file, name, False)
