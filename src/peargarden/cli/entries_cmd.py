"""``pear entries``: the switchable entries (``#`` headings) of a prompt file."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from peargarden.errors import BadInput, NotFound

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


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"无法读取：{exc}", path=path) from None


@entries_app.command("list")
def list_command(
    file: str = typer.Argument(..., help="The prompt file (a path, or relative to the data folder)."),
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
) -> None:
    """List the entries of FILE: heading, level, on/off, owner (程序 entries end in a suffix)."""
    from peargarden.stage.entries import parse_entries

    entries = [e for e in parse_entries(_read(_resolve(file))) if e.name]
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
    from peargarden.stage.entries import find_entry, toggle_entry
    from peargarden.workspace import atomic

    path = _resolve(file)
    text = _read(path)
    entry = find_entry(text, name)
    if entry is None:
        raise NotFound(f"{path.name} 里没有名为「{name}」的条目（用 pear entries list 查看）")
    word = "打开" if enabled else "关闭"
    if entry.enabled == enabled:
        typer.echo(f"「{name}」本来就是{word}的")
        return
    atomic.write_text(path, toggle_entry(text, name, enabled))
    typer.echo(f"已{word}「{name}」")


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
