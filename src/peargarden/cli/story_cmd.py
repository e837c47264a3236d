"""``pear story``: a chat's story memory — the scene notes, compaction, and the card's resident memory."""

from __future__ import annotations

import json
import os

import click
import typer

from peargarden.app.play import compact_now, ensure_file, resident_file, resident_text, story_session, story_state
from peargarden.errors import BadInput

from ._app import app, state

story_app = typer.Typer(help="剧情记忆：场记（世界状态与登场名录）、压缩、卡的常驻记忆。", no_args_is_help=True)
app.add_typer(story_app, name="story")


@story_app.command("state")
def state_command(
    card: str = typer.Option(..., "--card", help="卡名（文件夹名）。"),
    chat: str | None = typer.Option(None, "--chat", help="对话 id（默认：这张卡最近的一局）。"),
    as_json: bool = typer.Option(False, "--json", help="以 JSON 输出。"),
) -> None:
    """当前分支的场记：世界状态、登场名录、生效中的接力摘要。"""
    data = story_state(story_session(state.home, card, chat))
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    typer.echo(f"对话 {data['chat']}（卡「{data['card']}」）")
    typer.echo("【世界状态】\n" + (data["world_state"] or "（尚无记录）"))
    typer.echo("【登场名录】" + (data["roster"] or "（尚无登记）"))
    summary = data["summary"]
    if summary:
        typer.echo(f"【前情提要】覆盖 {summary.get('turns', 0)} 轮、{summary.get('chars', 0)} 字：")
        typer.echo(str(summary.get("summary", "")))
    else:
        typer.echo("【前情提要】（尚未压缩）")


@story_app.command("compact")
def compact_command(
    card: str = typer.Option(..., "--card", help="卡名（文件夹名）。"),
    chat: str | None = typer.Option(None, "--chat", help="对话 id（默认：这张卡最近的一局）。"),
) -> None:
    """现在就把较早的剧情压成接力摘要（保留最近几轮原文；原消息仍留在会话文件里）。"""
    session = story_session(state.home, card, chat)
    summary, warnings = compact_now(session, progress=lambda line: typer.echo(line, err=True))
    typer.echo(f"已压缩：{summary.get('turns', 0)} 轮、{summary.get('chars', 0)} 字成为前情提要。")
    for warning in warnings:
        typer.echo(f"注意：{warning}", err=True)


@story_app.command("memory")
def memory_command(
    card: str = typer.Option(..., "--card", help="卡名（文件夹名）。"),
    edit: bool = typer.Option(False, "--edit", help="用 $EDITOR 打开常驻记忆文件。"),
) -> None:
    """卡的常驻记忆（每局新对话都会带上，≤1200 字）；--edit 直接编辑这个文件。"""
    folder, path = resident_file(state.home, card)
    if edit:
        ensure_file(path)
        if not os.environ.get("EDITOR") and not os.environ.get("VISUAL"):
            raise BadInput(f"没有设置 $EDITOR；可以直接编辑文件：{path}")
        click.edit(filename=str(path))
        return
    text = resident_text(folder)
    typer.echo(f"文件：{path}")
    typer.echo(text or "（还没有常驻记忆）")
