"""``pear lorebook``: the shared lorebooks and which cards mount them."""

from __future__ import annotations

import typer

from peargarden.app.library import lorebook_rows, mount, unmount
from peargarden.formats import dumps_json

from ._app import app, state

lorebook_app = typer.Typer(
    help="Shared lorebooks (library/lorebooks/): list, mount on a card, unmount.", no_args_is_help=True
)
app.add_typer(lorebook_app, name="lorebook")


@lorebook_app.command("mount")
def mount_command(
    book: str = typer.Argument(..., help="Lorebook name (file name in library/lorebooks/ without .json)."),
    card: str = typer.Option(..., "--card", help="The card to mount it on."),
) -> None:
    """Mount a library lorebook on a card (added to the card's 卡.json `lorebooks`)."""
    if mount(state.home, card, book):
        typer.echo(f"已把世界书「{book}」挂载到卡「{card}」")
    else:
        typer.echo(f"卡「{card}」已经挂载了世界书「{book}」")


@lorebook_app.command("unmount")
def unmount_command(
    book: str = typer.Argument(..., help="Lorebook name."),
    card: str = typer.Option(..., "--card", help="The card to unmount it from."),
) -> None:
    """Unmount a lorebook from a card (the book stays in the library)."""
    if unmount(state.home, card, book):
        typer.echo(f"已从卡「{card}」卸下世界书「{book}」")
    else:
        typer.echo(f"卡「{card}」没有挂载世界书「{book}」")


@lorebook_app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
) -> None:
    """List the library lorebooks with their entry counts and the cards that mount them."""
    rows = lorebook_rows(state.home)
    if as_json:
        typer.echo(dumps_json(rows, indent=2))
        return
    if not rows:
        typer.echo("世界书库是空的。用 pear import 导入世界书。")
        return
    for row in rows:
        cards = "、".join(row["mounted_by"]) or "（未挂载）"
        count = f"[损坏] {row['error']}" if "error" in row else f"{row['entries']} 条"
        typer.echo(f"{row['name']}\t{count}\t挂载于：{cards}")
