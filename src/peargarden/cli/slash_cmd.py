"""``pear slash``: STscript (SillyTavern's slash commands) — a script run on one of your chats, or a
recorded case replayed."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from peargarden.errors import BadInput, PearError
from peargarden.formats import dumps_json

from ._app import app, state


@app.command("slash")
def slash_cmd(
    words: list[str] = typer.Argument(..., help="SCRIPT (with --chat), or: replay CASE_DIR."),
    chat: str | None = typer.Option(None, "--chat", help="对话 id（pear sessions list 可查）：在这段对话里运行脚本。"),
    card: str | None = typer.Option(None, "--card", help="只在这张卡的对话里找 --chat。"),
    as_json: bool = typer.Option(False, "--json", help="打印一个 JSON 对象（结果、提示、输入框）。"),
    common: Path | None = typer.Option(None, "--common", help="replay: folder with card, settings.json, preset.json."),
) -> None:
    """STscript：--chat ID SCRIPT 在对话里运行脚本；replay CASE_DIR 回放录制的案例。"""
    if chat is None:
        if len(words) == 2 and words[0] == "replay":
            from peargarden.app.play import replay_slash_case

            print(dumps_json(replay_slash_case(Path(words[1]), common), indent=2))
            return
        raise BadInput("用法：pear slash --chat ID SCRIPT [--json]，或 pear slash replay CASE_DIR [--common DIR]")
    from peargarden.app.play import run_stored_chat_script

    outcome = run_stored_chat_script(state.home, chat, " ".join(words), card=card)
    if as_json:
        print(dumps_json(
            {
                "result": outcome.result,
                "thrown": outcome.thrown,
                "toasts": outcome.toasts,
                "input": outcome.input_text,
                "warnings": outcome.warnings,
                "popups": outcome.popups,
                "changed": outcome.changed,
            },
            indent=2,
        ))  # fmt: skip
    else:
        for toast in outcome.toasts:
            head = f"[{toast['type']}]" + (f" {toast['title']}" if toast["title"] else "")
            print(f"{head}: {toast['message']}", file=sys.stderr)
        for warning in outcome.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if outcome.input_text is not None:
            print(f"输入框：{outcome.input_text}", file=sys.stderr)
        pipe = (outcome.result or {}).get("pipe")
        if isinstance(pipe, str) and pipe:
            print(pipe)
    failed = outcome.thrown or (outcome.result or {}).get("isError")
    if failed:
        message = outcome.thrown["message"] if outcome.thrown else str((outcome.result or {}).get("errorMessage"))
        raise PearError(f"脚本出错：{message.splitlines()[0]}")
