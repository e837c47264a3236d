"""``pear script``: a card's TavernHelper scripts — a recorded case replayed."""

from __future__ import annotations

from pathlib import Path

import typer

from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._app import app


@app.command("script", context_settings={"allow_interspersed_args": True})
def script_cmd(
    words: list[str] = typer.Argument(..., help="replay CASE_DIR"),
    common: Path | None = typer.Option(
        None, "--common", help="replay: folder with st_settings_overrides.json, preset.json."
    ),
) -> None:
    """TavernHelper 脚本：replay CASE_DIR 回放录制的案例。"""
    if len(words) == 2 and words[0] == "replay":
        from peargarden.app.play import replay_script_case

        print(dumps_json(replay_script_case(Path(words[1]), common), indent=2))
        return
    raise BadInput("用法：pear script replay CASE_DIR [--common DIR]")
