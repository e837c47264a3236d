"""``pear stage``: look at what a stage beat would send, without calling a model."""

from __future__ import annotations

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
    small: bool = typer.Option(
        False, "--small", help="The small-model profile (what a chat on a small local model sends): no tools."
    ),
) -> None:
    """Print the system prompt, the messages and the tools of one stage beat.

    With --chat it is the chat's next beat exactly as ``pear chat`` would send it (the service's
    preview); without, a new chat whose first assistant message is the card's greeting.  Nothing is
    written.
    """
    if thinking is not None and thinking.strip().lower() not in _LEVELS:
        raise BadInput(f"--thinking 只能是 {'|'.join(_LEVELS)}，收到 {thinking!r}")
    if chat:
        system, messages, tools, warnings = _chat_preview(card, chat, message, thinking)
    else:
        system, messages, tools, warnings = _new_chat_beat(card, message, thinking, small)
    tool_specs = [t.spec().to_openai() for t in tools]
    if as_json:
        payload: dict[str, Any] = {
            "system": system,
            "messages": messages,
            "tools": tool_specs,
            "warnings": warnings,
        }
        typer.echo(dumps_json(payload, indent=2))
        return
    typer.echo("===== system =====")
    typer.echo(system)
    for item in messages:
        typer.echo(f"===== {item['role']} =====")
        typer.echo(item["content"])
    typer.echo("===== tools =====")
    typer.echo("、".join(t.name for t in tools))
    for warning in warnings:
        typer.echo(f"警告：{warning}", err=True)


# system prompt, messages, tools, warnings
_Beat = tuple[str, list[Any], list[Any], list[str]]


def _chat_preview(card: str, chat: str, message: str, thinking: str | None) -> _Beat:
    from peargarden.app.service import ChatOptions, PearApp

    options = ChatOptions(mode="stage", thinking=thinking.strip().lower() if thinking else None)
    preview = PearApp(state.home).open_chat(card, chat, options).preview("stage", message)
    messages = list(preview.request.messages)
    system = ""
    if messages and messages[0].get("role") == "system":
        system = str(messages.pop(0).get("content") or "")
    return system, messages, preview.tools, preview.warnings


def _new_chat_beat(card: str, message: str, thinking: str | None, small: bool = False) -> _Beat:
    from peargarden.modes.stage.materials import load_stage_materials
    from peargarden.modes.stage.request import assemble_for, greeting_turns
    from peargarden.modes.stage.tools import StageToolEnv, stage_tools

    materials = load_stage_materials(state.home, card)
    level = (thinking or _default_thinking(materials.settings)).strip().lower()
    history: list[Turn] = greeting_turns(materials)
    if small:
        from peargarden.modes.stage.request import compact_for

        staged = compact_for(materials, history, message)
        return staged.system, staged.messages, [], list(materials.warnings)
    tools = stage_tools(StageToolEnv(state.home, materials.folder))
    staged = assemble_for(materials, history, message, thinking=level, tool_names=[t.name for t in tools])
    return staged.system, staged.messages, tools, [*staged.warnings, *materials.warnings]


def _default_thinking(settings: Any) -> str:
    """What a chat would use: the embedded model never thinks (so lore arrives as bodies)."""
    from peargarden.workspace.config import LOCAL_PROVIDER

    main = settings.main()
    return "off" if main.provider == LOCAL_PROVIDER else str(main.thinking or "medium")
