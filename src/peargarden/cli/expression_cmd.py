"""``pear expression``: the expression of a reply and the card's sprite for it (SillyTavern's
expressions extension); ``pear sprites``: a card's sprite set, listed or imported."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from peargarden.app.extras import (
    card_sprites,
    expression_of,
    import_sprites,
    open_stored_chat,
    speaker_card,
    sprite_location,
    sprite_path,
)
from peargarden.app.library import open_card
from peargarden.formats import dumps_json

from ._app import app, state


@app.command("expression")
def expression_cmd(
    chat: str = typer.Option(..., "--chat", help="对话 id（pear sessions list 可查）。"),
    message: int = typer.Option(..., "--message", help="第几条消息（从 0 数）：角色的一条回复。"),
    card: str | None = typer.Option(None, "--card", help="只在这张卡的对话里找 --chat。"),
    as_json: bool = typer.Option(False, "--json", help='打印 {"label", "sprite"}。'),
) -> None:
    """一条回复的表情和卡的表情立绘：--chat ID --message N --json。"""
    session = open_stored_chat(state.home, chat, card)
    found = expression_of(state.home, session, message)
    owner = speaker_card(session, session.chat.tree.messages()[message].id)
    sprite = sprite_location(owner, found.sprite)
    if as_json:
        print(dumps_json({"label": found.label, "sprite": sprite}, indent=2))
    else:
        print(found.label if sprite is None else f"{found.label}\t{sprite}")


@app.command("sprites")
def sprites_cmd(
    card: str = typer.Argument(..., help="卡名。"),
    source: Path | None = typer.Argument(None, help="导入：酒馆的 characters/<名字>/ 文件夹、它的 zip，或 CHARX 卡。"),
    as_json: bool = typer.Option(False, "--json", help='打印 [{"label", "sprite"}]。'),
) -> None:
    """卡的表情立绘：列出，或从酒馆的文件夹、zip、CHARX 导入。"""
    folder = open_card(state.home, card)
    if source is not None:
        written = import_sprites(folder, source)
        print(f"导入了 {len(written)} 张：{'、'.join(written)}", file=sys.stderr)
    rows = [{"label": s.label, "sprite": sprite_path(folder, s.name)} for s in card_sprites(folder)]
    if as_json:
        print(dumps_json(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['label']}\t{row['sprite']}")
