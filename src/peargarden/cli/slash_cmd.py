"""``pear slash``: STscript (SillyTavern's slash commands) — a recorded case replayed, or a script run
on one of your chats."""

from __future__ import annotations

from pathlib import Path

import typer

from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._app import app


@app.command(
    "slash",
    context_settings={"allow_interspersed_args": True},
)
def slash_cmd(
    words: list[str] = typer.Argument(..., help="replay CASE_DIR, or the script to run (with --chat)."),
    common: Path | None = typer.Option(None, "--common", help="replay: folder with card, settings.json, preset.json."),
) -> None:
    """STscript：replay CASE_DIR 回放录制的案例；--chat ID SCRIPT 在对话里运行脚本。"""
    if len(words) == 2 and words[0] == "replay":
        from peargarden.app.play.slash_cases import replay_slash_case

        print(dumps_json(replay_slash_case(Path(words[1]), common), indent=2))
        return
    raise BadInput("用法：pear slash replay CASE_DIR [--common DIR]")
