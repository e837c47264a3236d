"""``pear sandbox check``: judge tool calls from a JSONL file, one verdict line per input line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from peargarden.app.play import check_call, known_card
from peargarden.errors import BadInput

from ._app import app, state

sandbox_app = typer.Typer(help="The sandbox that judges every tool call.", no_args_is_help=True)
app.add_typer(sandbox_app, name="sandbox")


def _grants(value: Any, source: str) -> tuple[list[str], bool]:
    if value is None:
        return [], False
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value), False
    if isinstance(value, dict):
        paths = value.get("paths", value.get("dirs", []))
        bash = value.get("bash", False)
        if isinstance(paths, list) and all(isinstance(v, str) for v in paths) and isinstance(bash, bool):
            return list(paths), bash
    raise BadInput('"grants" must be a list of paths or {"paths": [...], "bash": true|false}', path=source)


@sandbox_app.command("check")
def check_command(
    vectors: Path = typer.Argument(..., help='JSONL: one {"tool", "path"|"command"[, "grants"]} per line.'),
    card: str = typer.Option(..., "--card", help="The current card (folder name under cards/)."),
    chat: str | None = typer.Option(None, "--chat", help="The current chat id (other chats are forbidden)."),
) -> None:
    """Print {"verdict", "unit", "reason"} for every call; relative paths are read from the data folder."""
    # The service (the sandbox and tree-sitter behind it) is imported by this command only.

    home = state.home
    known_card(home, card)  # an unknown card is an error before the file is read
    try:
        lines = vectors.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"无法读取：{error}", path=vectors) from error
    calls: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{vectors}:{number}"
        try:
            call = json.loads(line)
        except json.JSONDecodeError as error:
            raise BadInput(f"不是 JSON（invalid JSON: {error.msg}）", path=where) from error
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            raise BadInput('每行需要一个含 "tool" 的对象（each line needs an object with "tool"）', path=where)
        call["_where"] = where
        calls.append(call)
    for call in calls:
        paths, bash = _grants(call.get("grants"), call["_where"])
        args: dict[str, object] = {key: call[key] for key in ("path", "command") if key in call}
        verdict = check_call(home, card, call["tool"], args, chat_id=chat, grant_paths=paths, bash_granted=bash)
        typer.echo(json.dumps(verdict, ensure_ascii=False))
