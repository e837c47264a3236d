"""``pear story``: a chat's story memory — the scene notes, compaction, and the card's resident memory."""

from __future__ import annotations

import json
import os
from typing import Any

import click
import typer

from peargarden.app.service import ChatSession, PearApp
from peargarden.errors import BadInput, NotFound
from peargarden.modes.stage import memory as bookkeeping
from peargarden.stage.memory import format_roster, format_state
from peargarden.workspace import atomic

from ._app import app, state

story_app = typer.Typer(help="剧情记忆：场记（世界状态与登场名录）、压缩、卡的常驻记忆。", no_args_is_help=True)
app.add_typer(story_app, name="story")


def _session(card: str, chat_id: str | None) -> ChatSession:
    service = PearApp(state.home, story_memory=True)
    if chat_id:
        return service.open_chat(card, chat_id)
    session = service.latest_chat(card)
    if session is None:
        raise NotFound(f"卡「{card}」还没有对话；先用 pear chat 开一局")
    return session


def _state_json(session: ChatSession) -> dict[str, Any]:
    tree = session.chat.tree
    ledger = bookkeeping.current_ledger(tree)
    summary = bookkeeping.active_summary(tree)
    return {
        "card": session.card.folder,
        "chat": session.chat_id,
        "ledger": ledger.to_json(),
        "world_state": format_state(ledger),
        "roster": format_roster(ledger),
        "summary": summary,
        "resident_file": bookkeeping.resident_path(session.card).as_posix(),
    }


@story_app.command("state")
def state_command(
    card: str = typer.Option(..., "--card", help="卡名（文件夹名）。"),
    chat: str | None = typer.Option(None, "--chat", help="对话 id（默认：这张卡最近的一局）。"),
    as_json: bool = typer.Option(False, "--json", help="以 JSON 输出。"),
) -> None:
    """当前分支的场记：世界状态、登场名录、生效中的接力摘要。"""
    data = _state_json(_session(card, chat))
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
    session = _session(card, chat)
    settings = bookkeeping.session_story_settings(session)
    user_name, char_name = bookkeeping.session_names(session)
    outcome = bookkeeping.compact_story(
        session.chat,
        session.card,
        bookkeeping.session_side_call(session),
        settings,
        user_name,
        char_name,
        manual=True,
        count=bookkeeping.story_counter(session.resolved.model),
    )
    if not outcome.written:
        raise BadInput(outcome.warning or outcome.note or "没有压缩")
    summary = bookkeeping.active_summary(session.chat.tree) or {}
    typer.echo(f"已压缩：{summary.get('turns', 0)} 轮、{summary.get('chars', 0)} 字成为前情提要。")
    if outcome.warning:
        typer.echo(f"注意：{outcome.warning}", err=True)


@story_app.command("memory")
def memory_command(
    card: str = typer.Option(..., "--card", help="卡名（文件夹名）。"),
    edit: bool = typer.Option(False, "--edit", help="用 $EDITOR 打开常驻记忆文件。"),
) -> None:
    """卡的常驻记忆（每局新对话都会带上，≤1200 字）；--edit 直接编辑这个文件。"""
    folder = PearApp(state.home).card(card)
    path = bookkeeping.resident_path(folder)
    if edit:
        if not path.exists():
            atomic.write_text(path, "")
        if not os.environ.get("EDITOR") and not os.environ.get("VISUAL"):
            raise BadInput(f"没有设置 $EDITOR；可以直接编辑文件：{path}")
        click.edit(filename=str(path))
        return
    text = bookkeeping.read_resident(folder)
    typer.echo(f"文件：{path}")
    typer.echo(text or "（还没有常驻记忆）")
