"""``pear vars``: chat variables (MVU): what one reply does to them."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app

vars_app = typer.Typer(help="聊天变量（MVU）：一条回复对变量做了什么。", no_args_is_help=True)
app.add_typer(vars_app, name="vars")


@vars_app.command("apply")
def apply_command(
    variables: Path = typer.Option(..., "--variables", help="变量 JSON：MVU 的变量记录，或只有 stat_data。"),
    reply: Path = typer.Option(..., "--reply", help="回复文本（含 <UpdateVariable> / _.set(…); / <JSONPatch>）。"),
    as_json: bool = typer.Option(False, "--json", help="在 stdout 打印更新后的完整变量记录（JSON）。"),
) -> None:
    """Apply one reply's update commands to the variables; print the variables after it."""
    from peargarden.app.play.variables import apply_reply_files, record_json

    applied = apply_reply_files(variables, reply)
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
