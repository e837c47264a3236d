"""``pear lore``: search a card's lore the way the stage's ``lorebook_search`` does."""

from __future__ import annotations

import typer

from peargarden.formats import dumps_json

from ._app import app, state

lore_app = typer.Typer(help="A card's lore (mounted books + 补充设定集): search.", no_args_is_help=True)
app.add_typer(lore_app, name="lore")


@lore_app.command("search")
def search_command(
    query: str = typer.Argument(..., help="Words to look for (split on anything that is not a letter or digit)."),
    card: str = typer.Option(..., "--card", help="The card (folder name)."),
    limit: int = typer.Option(5, "--limit", min=1, max=20, help="How many entries at most (stage uses 3)."),
    as_json: bool = typer.Option(False, "--json", help="JSON array sorted by score (non-ASCII readable)."),
) -> None:
    """Score every enabled entry (+5 key, +3 title, +1 per body occurrence up to 3, per term)."""
    from peargarden.app.cards import search_lore

    hits, warnings = search_lore(state.home, card, query, limit)
    for warning in warnings:
        typer.echo(f"警告：{warning}", err=True)
    if as_json:
        rows = [
            {
                "title": h.entry.title,
                "score": h.score,
                "keys": list(h.entry.keys),
                "book": h.entry.book,
                "body": h.entry.content,
            }
            for h in hits
        ]
        typer.echo(dumps_json(rows, indent=2))
        return
    if not hits:
        typer.echo("（没有命中）")
    for h in hits:
        keys = "、".join(h.entry.keys)
        typer.echo(f"{h.score:>3}  {h.entry.title or '条目'}（{keys}）· {h.entry.book}")
        typer.echo(f"     {h.entry.content.strip()}")
