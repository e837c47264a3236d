"""``pear translate``: one message of a chat translated (SillyTavern's translate extension), kept
beside the original."""

from __future__ import annotations

import typer

from peargarden.app.extras import open_stored_chat, translate_message
from peargarden.formats import dumps_json

from ._app import app, state


@app.command("translate")
def translate_cmd(
    chat: str = typer.Option(..., "--chat", help="对话 id（pear sessions list 可查）。"),
    message: int = typer.Option(..., "--message", help="第几条消息（从 0 数，和 /edit N 一样）。"),
    to: str | None = typer.Option(None, "--to", help="译成哪种语言（zh、en、ja…）；默认 [translate] language。"),
    card: str | None = typer.Option(None, "--card", help="只在这张卡的对话里找 --chat。"),
    as_json: bool = typer.Option(False, "--json", help='打印 {"text", "source_lang"}。'),
) -> None:
    """翻译对话里的一条消息（原文保留）：--chat ID --message N --to LANG。"""
    session = open_stored_chat(state.home, chat, card)
    result = translate_message(state.home, session, message, to)
    if as_json:
        print(dumps_json({"text": result.text, "source_lang": result.source_lang}, indent=2))
    else:
        print(result.text)
