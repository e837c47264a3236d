"""``pear imagine``: a picture of a chat (SillyTavern's image generation extension), kept with the chat
as a picture message and written to a file."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from peargarden.app.extras import PictureOverrides as Overrides
from peargarden.app.extras import imagine, open_stored_chat
from peargarden.app.play import save_file

from ._app import app, state


@app.command("imagine")
def imagine_cmd(
    chat: str = typer.Option(..., "--chat", help="对话 id（pear sessions list 可查）。"),
    out: Path = typer.Option(..., "--out", help="图片也写到这个文件。"),
    prompt: str | None = typer.Option(None, "--prompt", help="自己写的提示词（不经副模型）。"),
    kind: str = typer.Option("last", "--kind", help="没有 --prompt 时画什么：last（最后一条回复）、character、scene。"),
    base_url: str | None = typer.Option(None, "--base-url", help="图片服务的地址，代替 [pictures] base_url。"),
    model: str | None = typer.Option(None, "--model", help="图片模型，代替 [pictures] model。"),
    card: str | None = typer.Option(None, "--card", help="只在这张卡的对话里找 --chat。"),
) -> None:
    """为对话生成一张图（存进对话并写到文件）：--chat ID --out FILE。"""
    session = open_stored_chat(state.home, chat, card)
    made = imagine(state.home, session, kind, prompt, Overrides(base_url or "", model or ""))
    save_file(out, made.data)
    print(f"{out}（第 {made.index} 条消息；提示词：{made.prompt}）", file=sys.stderr)
