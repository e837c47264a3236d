"""``pear cards``: the cards in the data folder."""

from __future__ import annotations

import json
from typing import Any

import typer

from peargarden.errors import PearError
from peargarden.workspace.cards import CardFolder, list_cards

from ._app import app, state


def card_summary(folder: CardFolder) -> dict[str, Any]:
    """One card as the listing shows it; a damaged card is listed with its ``error``."""
    card_file = folder.card_file()
    row: dict[str, Any] = {
        "folder": folder.folder,
        "name": None,
        "file": card_file.name if card_file else None,
        "spec": None,
        "lorebooks": [],
        "chats": len(folder.chat_ids()),
    }
    try:
        row["lorebooks"] = folder.lorebooks()
        card = folder.load_card()
        row["name"] = card.name
        row["spec"] = {"v1": "chara_card_v1", "v2": "chara_card_v2", "v3": "chara_card_v3"}[card.source_spec]
    except PearError as error:
        row["error"] = error.message
    return row


@app.command("cards")
def cards_command(
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
) -> None:
    """List the cards: folder, name, card file, mounted lorebooks, number of chats."""
    rows = [card_summary(folder) for folder in list_cards(state.home)]
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
