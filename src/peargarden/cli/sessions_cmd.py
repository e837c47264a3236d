"""``pear sessions``: list, show and export the chats (session trees) of the cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from peargarden.app.play import (
    CardFolder,
    ChatRecord,
    Entry,
    GroupChatRecord,
    card_chat_summaries,
    card_folders,
    export_sillytavern,
    find_any_chat,
    save_file,
)
from peargarden.formats import dumps_json

from ._app import app, state

sessions_app = typer.Typer(help="对话（会话树）：列出、查看、导出。", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")


# Summary keys the web's list uses that `pear sessions list --json` does not print.
_INTERNAL = ("branch_mode", "visible")


def _cards(card: str | None) -> list[CardFolder]:
    return card_folders(state.home, card)


def _find(chat_id: str, card: str | None) -> ChatRecord | GroupChatRecord:
    return find_any_chat(state.home, chat_id, card)


def _message_row(number: int, entry: Entry) -> dict[str, Any]:
    message = entry.message
    row: dict[str, Any] = {
        "n": number,
        "id": entry.id,
        "role": message.get("role"),
        "content": message.get("content"),
    }
    for key in (
        "name",
        "reasoning",
        "tool_calls",
        "tool_call_id",
        "is_error",
        "model",
        "usage",
        "stop_reason",
        "tags",
    ):
        if key in message:
            row[key] = message[key]
    return row


@sessions_app.command("list")
def list_command(
    card: str | None = typer.Option(None, "--card", help="只列这张卡的对话。"),
    as_json: bool = typer.Option(False, "--json", help="JSON 输出（中文不转义）。"),
) -> None:
    """列出对话：id、卡、方式、消息数、最后一条。"""
    rows = []
    for folder in _cards(card):
        # Kept per chat and re-read only for chats that changed (a long chat is not read every time).
        for summary in card_chat_summaries(folder):
            rows.append({key: value for key, value in summary.items() if key not in _INTERNAL})
    if as_json:
        typer.echo(dumps_json(rows, indent=2))
        return
    if not rows:
        typer.echo("还没有对话。用 pear chat 开始一段。")
        return
    for row in rows:
        last = " ".join(row["last"].split())
        last = last if len(last) <= 40 else last[:39] + "…"
        typer.echo(f"{row['id']}\t{row['card']}\t{row['mode']}\t{row['messages']} 条\t{last}")


@sessions_app.command("show")
def show_command(
    chat_id: str = typer.Argument(..., help="对话 id。"),
    card: str | None = typer.Option(None, "--card", help="对话所在的卡（不给则在所有卡里找）。"),
    tree: bool = typer.Option(False, "--tree", help="显示整棵树，而不只是当前分支。"),
    as_json: bool = typer.Option(False, "--json", help="JSON 输出（中文不转义）。"),
) -> None:
    """显示一段对话当前分支的消息（带编号，从 0 数起）。"""
    record = _find(chat_id, card)
    folder = record.folder
    messages = record.messages()
    if as_json:
        out: dict[str, Any] = {k: v for k, v in record.summary().items() if k not in _INTERNAL}
        out["leaf"] = record.leaf
        out["branch"] = [_message_row(n, e) for n, e in enumerate(messages)]
        if tree:
            out["tree"] = [
                {
                    "id": r.entry.id,
                    "parentId": r.entry.parent_id,
                    "type": r.entry.type,
                    "depth": r.depth,
                    "onPath": r.on_path,
                    "role": r.entry.role or None,
                }
                for r in record.tree_rows()
            ]
        typer.echo(dumps_json(out, indent=2))
        return
    for warning in record.warnings:
        typer.echo(f"⚠ {warning}", err=True)
    if tree:
        for row in record.tree_rows():
            entry = row.entry
            mark = "●" if entry.id == record.leaf else ("•" if row.on_path else "○")
            text = " ".join(str(entry.message.get("content") or "").split())[:40] if entry.type == "message" else ""
            typer.echo(f"{'  ' * row.depth}{mark} {entry.id} {entry.role or entry.type} {text}")
        return
    for number, entry in enumerate(messages):
        role = entry.role
        who = {
            "user": "你",
            "assistant": str(entry.message.get("name") or folder.folder),
            "tool": "工具",
        }.get(role, role)
        hidden = "（已隐藏）" if "hidden" in (entry.message.get("tags") or []) else ""  # not sent to the model
        typer.echo(f"[{number}] {hidden}{who}：{entry.message.get('content') or ''}")


@sessions_app.command("export")
def export_command(
    chat_id: str = typer.Argument(..., help="对话 id。"),
    card: str | None = typer.Option(None, "--card", help="对话所在的卡（不给则在所有卡里找）。"),
    output: Path | None = typer.Option(None, "--output", "-o", help="写到这个文件（默认打印到标准输出）。"),
) -> None:
    """把当前分支导出成 SillyTavern 的对话 JSONL（同一回复的其他版本成为 swipes）。"""
    data = export_sillytavern(state.home, _find(chat_id, card))
    if output is None:
        typer.echo(data.decode("utf-8"))
    else:
        save_file(output, data)
        typer.echo(f"已导出到 {output}", err=True)
