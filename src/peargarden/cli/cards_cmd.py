"""``pear cards``: the cards in the data folder."""

from __future__ import annotations

import json

import typer

from peargarden.app.library import card_summary, cards

from ._app import app, state


@app.command("cards")
def cards_command(
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
) -> None:
    """List the cards: folder, name, card file, mounted lorebooks, number of chats."""
    rows = [card_summary(folder) for folder in cards(state.home)]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not rows:
        typer.echo("还没有卡。用 pear init 放入默认卡，或用 pear import 导入。")
        return
    for row in rows:
        books = "、".join(row["lorebooks"]) or "（无）"
        if "error" in row:
            typer.echo(f"{row['folder']}\t[损坏] {row['error']}")
        else:
            name = "" if row["name"] == row["folder"] else f"（{row['name']}）"
            typer.echo(f"{row['folder']}{name}\t{row['file']}\t世界书：{books}\t对话：{row['chats']}")
