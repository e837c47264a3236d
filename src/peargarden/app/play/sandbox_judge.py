"""The sandbox plugged into the approvals flow: the loop's :data:`Judge` and card-grant recorder.

Grants are read on every call, so an edit of ``卡.json`` or a session grant takes effect at once:
session grants come from ``sandbox_grant`` custom entries on the active branch (rewinding before
one removes it); permanent grants from the card's ``卡.json`` (``sandboxAllow`` paths, ``sandboxBash``).
The user's own blacklist and no-ask prefixes come from ``config.toml`` ``[sandbox]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from peargarden.agent.approvals import SESSION_GRANT_TYPE, ApprovalRequest, CardGrantRecorder, Judge, Judgement
from peargarden.agent.loop import MODE_SWITCH_KEY
from peargarden.agent.tools import Tool, ToolContext
from peargarden.errors import NotFound
from peargarden.modes.work.bash_tool import isolation_note
from peargarden.sandbox import TOOL_ACCESS, judge
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import Home
from peargarden.workspace.sandbox_context import sandbox_context

BASH_UNIT = "bash"


def _session_grants(ctx: ToolContext) -> tuple[list[str], bool]:
    paths: list[str] = []
    bash = False
    for data in ctx.customs(SESSION_GRANT_TYPE):
        if not isinstance(data, dict):
            continue
        unit = data.get("unit")
        if data.get("tool") == "bash" or unit == BASH_UNIT:
            bash = True
        elif isinstance(unit, str) and unit:
            paths.append(unit)
    return paths, bash


def _card_grants(folder: CardFolder) -> tuple[list[str], bool]:
    try:
        settings = folder.settings()
    except Exception:  # a broken 卡.json grants nothing; the card's own tools report it
        return [], False
    allow = settings.get("sandboxAllow")
    paths = [p for p in allow if isinstance(p, str)] if isinstance(allow, list) else []
    return paths, settings.get("sandboxBash") is True


LEFT_WORK_MODE = "已切回扮演模式：这一批里剩下的写操作不再执行。"


def _left_work_mode(tool: Tool, ctx: ToolContext) -> bool:
    """The model switched back to role play earlier in this tool batch: its later writes are blocked."""
    back = ctx.beat_state.get(MODE_SWITCH_KEY)
    return ctx.mode == "work" and isinstance(back, str) and back != "work" and tool.access in ("write", "exec")


def make_sandbox_judge(blacklist: Sequence[str] | None = None, no_ask: Sequence[str] | None = None) -> Judge:
    """A judge that asks the sandbox; tools it does not govern (lore, draft, ask …) are allowed."""

    def sandbox(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        if _left_work_mode(tool, ctx):
            return Judgement("deny", None, LEFT_WORK_MODE)
        if tool.name not in TOOL_ACCESS or ctx.home is None or ctx.card_dir is None:
            return Judgement("allow")
        home = Home(Path(ctx.home))
        folder = CardFolder(home, Path(ctx.card_dir).name)
        session_paths, session_bash = _session_grants(ctx)
        card_paths, card_bash = _card_grants(folder)
        sctx = sandbox_context(
            home,
            folder.folder,
            chat_id=ctx.chat_id,
            grant_paths=[*session_paths, *card_paths],
            bash_granted=session_bash or card_bash,
            blacklist=blacklist,
            no_ask=no_ask,
        )
        verdict = judge(tool.name, args, sctx)
        reason = verdict.reason
        if verdict.kind == "ask" and tool.name == "bash":
            # Whoever answers must know what approving bash means on this machine.
            reason = f"{reason}\n{isolation_note()}" if reason else isolation_note()
        return Judgement(verdict.kind, verdict.unit, reason)

    return sandbox


def make_card_grant_recorder(home: Home, card_folder: str) -> CardGrantRecorder:
    """ "Allow permanently for this card": bash → ``sandboxBash``; a folder/file → ``sandboxAllow``."""
    folder = CardFolder(home, card_folder)

    def record(request: ApprovalRequest) -> None:
        settings = dict(folder.settings())
        if request.tool_name == "bash" or request.unit == BASH_UNIT:
            settings["sandboxBash"] = True
        elif request.unit:
            # Units are already relative to the data folder when inside it and absolute outside.
            stored = request.unit
            allow = [p for p in settings.get("sandboxAllow", []) if isinstance(p, str)]
            if stored not in allow:
                allow.append(stored)
            settings["sandboxAllow"] = allow
        folder.write_settings(settings)

    return record


def known_card(home: Home, card: str) -> None:
    """*card* names a card folder of the data folder (the sandbox's zones are drawn around it)."""
    if not home.card_dir(card).is_dir():
        raise NotFound(f"没有这张卡：{card}（no such card folder under cards/）", path=home.cards_dir)


def check_call(
    home: Home,
    card: str,
    tool: str,
    args: dict[str, object],
    *,
    chat_id: str | None = None,
    grant_paths: Sequence[str] = (),
    bash_granted: bool = False,
) -> dict[str, Any]:
    """The sandbox's verdict for one tool call of *card* (``pear sandbox check``): relative paths are
    read from the data folder; *grant_paths* and *bash_granted* stand for the user's grants.  The
    verdict as JSON: ``verdict``, ``unit``, ``reason``."""
    known_card(home, card)
    ctx = sandbox_context(
        home, card, chat_id=chat_id, grant_paths=grant_paths, bash_granted=bash_granted, paths_relative_to_root=True
    )
    return judge(tool, args, ctx).to_json()
