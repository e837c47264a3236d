"""``pear vars``: chat variables (MVU): what one reply does to them, what a chat holds."""

from __future__ import annotations

from pathlib import Path

import typer

from peargarden.app.play import apply_reply_files, card_schema, record_json, record_yaml, variables_of_chat

from ._app import app, state

vars_app = typer.Typer(help="聊天变量（MVU）：一条回复做了什么，一段对话里有什么。", no_args_is_help=True)
app.add_typer(vars_app, name="vars")


@vars_app.command("apply")
def apply_command(
    variables: Path = typer.Option(..., "--variables", help="变量 JSON：MVU 的变量记录，或只有 stat_data。"),
    reply: Path = typer.Option(..., "--reply", help="回复文本（含 <UpdateVariable> / _.set(…); / <JSONPatch>）。"),
    as_json: bool = typer.Option(False, "--json", help="在 stdout 打印更新后的完整变量记录（JSON）。"),
    card: str | None = typer.Option(
        None, "--card", help="角色卡文件或卡名：同时按它的脚本注册的 zod 变量结构（registerMvuSchema）检查更新。"
    ),
) -> None:
    """Apply one reply's update commands to the variables; print the variables after it."""
    schema = card_schema(state.home, card) if card else None
    applied = apply_reply_files(variables, reply, schema=schema)
    for warning in applied.warnings:
        typer.echo(f"pear: 跳过（skipped）{warning}".rstrip(), err=True)
    if as_json:
        typer.echo(record_json(applied.variables))
        return
    lines = _change_lines(applied.changes)
    typer.echo("\n".join(lines) if lines else "变量没有变化（no change）")


def _change_lines(changes: object, prefix: str = "") -> list[str]:
    if isinstance(changes, dict):
        return [line for key, value in changes.items() for line in _change_lines(value, f"{prefix}{key}.")]
    if isinstance(changes, list):
        return [line for index, value in enumerate(changes) for line in _change_lines(value, f"{prefix}{index}.")]
    if changes is None:
        return []
    return [f"{prefix[:-1]}: {changes}".rstrip()]


@vars_app.command("show")
def show_command(
    chat: str = typer.Option(..., "--chat", help="对话 id（角色卡的或群聊的；pear sessions list 可查）。"),
    message: int | None = typer.Option(None, "--message", help="SillyTavern 的消息编号（0 = 开场白）；默认最后一条。"),
    as_json: bool = typer.Option(False, "--json", help="打印 JSON：这条消息每个版本的变量和聊天变量。"),
) -> None:
    """The variables of a stored chat's message (per swipe) and the chat's variables; a group chat's too."""
    shown = variables_of_chat(state.home, chat)
    for warning in shown.warnings:  # a seed that could not be read: said, whatever is shown
        typer.echo(f"⚠ {warning}", err=True)
    found = shown.message(message)
    if as_json:
        typer.echo(record_json({"chat": chat, **found.to_json(), "chat_variables": shown.chat}))
        return
    role = "用户" if found.role == "user" else "回复"
    count = len(found.swipes)
    where = f"第 {found.index} 条 · {role}" + (f" · 第 {found.swipe_id + 1}/{count} 个版本" if count > 1 else "")
    body = record_yaml(found.current)
    typer.echo(f"{where}\n{body}" if body else f"{where}：没有变量（no variables）")
    if shown.chat:
        typer.echo(f"聊天变量：\n{record_yaml({'stat_data': shown.chat})}")
