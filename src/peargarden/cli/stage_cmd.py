"""``pear stage``: look at what a stage beat would send, without calling a model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._app import app, state

if TYPE_CHECKING:
    from peargarden.stage import Turn

stage_app = typer.Typer(help="The stage (agent way to play a card): inspect a beat's request.", no_args_is_help=True)
app.add_typer(stage_app, name="stage")

_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")


@stage_app.command("assemble")
def assemble_command(
    card: str = typer.Option(..., "--card", help="The card (folder name)."),
    message: str = typer.Option(..., "--message", help="The user's words for this beat."),
    chat: str | None = typer.Option(None, "--chat", help="Continue this chat (id); default: a new chat."),
    thinking: str | None = typer.Option(
        None, "--thinking", help="off|minimal|low|medium|high|xhigh (default: what a chat would use)."
    ),
    as_json: bool = typer.Option(False, "--json", help="JSON output (non-ASCII kept readable)."),
) -> None:
    """Print the system prompt, the messages and the tools of one stage beat.

    Without --chat the card's greeting is the first assistant message.  Nothing is written.
    """
    from peargarden.agent.stage_materials import load_stage_materials
    from peargarden.agent.stage_request import assemble_for, greeting_turns
    from peargarden.agent.stage_tools import StageToolEnv, stage_tools

    home = state.home
    materials = load_stage_materials(home, card)
    level = (thinking or _default_thinking(materials.settings)).strip().lower()
    if level not in _LEVELS:
        raise BadInput(f"--thinking 只能是 {'|'.join(_LEVELS)}，收到 {thinking!r}")
    history: list[Turn] = _chat_history(materials.folder.chats_dir, chat) if chat else greeting_turns(materials)
    tools = stage_tools(StageToolEnv(home, materials.folder))
    staged = assemble_for(materials, history, message, thinking=level, tool_names=[t.name for t in tools])
    warnings = [*staged.warnings, *materials.warnings]
    tool_specs = [t.spec().to_openai() for t in tools]
    if as_json:
        payload: dict[str, Any] = {
            "system": staged.system,
            "messages": staged.messages,
            "tools": tool_specs,
            "warnings": warnings,
        }
        typer.echo(dumps_json(payload, indent=2))
        return
    typer.echo("===== system =====")
    typer.echo(staged.system)
    for item in staged.messages:
        typer.echo(f"===== {item['role']} =====")
        typer.echo(item["content"])
    typer.echo("===== tools =====")
    typer.echo("、".join(t.name for t in tools))
    for warning in warnings:
        typer.echo(f"警告：{warning}", err=True)


def _default_thinking(settings: Any) -> str:
    """What a chat would use: the embedded model never thinks (so lore arrives as bodies)."""
    from peargarden.workspace.config import LOCAL_PROVIDER

    main = settings.main()
    return "off" if main.provider == LOCAL_PROVIDER else str(main.thinking or "medium")


def _chat_history(chats_dir: Path, chat_id: str) -> list[Turn]:
    from peargarden.app.chat_store import ChatFile
    from peargarden.sessions.context import build_context
    from peargarden.stage.history import story_turns

    chat = ChatFile.open(chats_dir, chat_id)
    context = [m for m in build_context(chat.tree.path()) if "hidden" not in m.tags]
    return story_turns(
        [
            {
                "role": m.role,
                "content": m.content,
                "tool_calls": m.tool_calls,
                "tool_call_id": m.tool_call_id,
                "is_error": m.is_error,
            }
            for m in context
        ]
    )
