"""``pear stage``: look at what a stage beat would send, without calling a model."""

from __future__ import annotations

from typing import Any

import typer

from peargarden.app import ChatOptions, PearApp
from peargarden.app.play import STAGE
from peargarden.errors import BadInput
from peargarden.formats import dumps_json

from ._app import app, state

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
    small: bool | None = typer.Option(
        None,
        "--small/--no-small",
        help="The small-model profile (no tools) or the full one (default: what the chat's model gets).",
    ),
) -> None:
    """Print the system prompt, the messages and the tools of one stage beat.

    With --chat it is the chat's next beat exactly as ``pear chat`` would send it; without, the first
    beat of a new chat (the card's greetings before it).  Both are the service's preview: nothing is
    written.  --thinking and --small/--no-small show what the beat would send with that level or
    profile (without --chat).
    """
    if thinking is not None and thinking.strip().lower() not in _LEVELS:
        raise BadInput(f"--thinking 只能是 {'|'.join(_LEVELS)}，收到 {thinking!r}")
    system, messages, tools, warnings = _preview(card, chat, message, thinking, small)
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


def _preview(card: str, chat: str | None, message: str, thinking: str | None, small: bool | None) -> _Beat:
    options = ChatOptions(mode=STAGE, thinking=thinking.strip().lower() if thinking else None)
    service = PearApp(state.home)
    # Without --chat, a new chat that is never written: its preview is the first beat `pear chat` sends.
    session = service.open_chat(card, chat, options) if chat else service.draft_chat(card, options, small_model=small)
    preview = session.preview(STAGE, message)
    messages = list(preview.request.messages)
    system = ""
    if messages and messages[0].get("role") == "system":
        system = str(messages.pop(0).get("content") or "")
    return system, messages, preview.tools, preview.warnings
