"""Work mode (写卡维护) in the app's mode table, and the role-play modes around it.

:func:`install_work_mode` (run once when :mod:`.modes` is imported) registers ``work`` with the ``work``
tag and wraps the role-play modes already in the table: ``stage`` gets the ``conversation_mode`` switch
tool, and both ``stage`` and ``tavern`` build their requests from the role-play view of the chat
(work beats reduced to their 【写卡维护】 lines).  A mode registered later with
:func:`.modes.register_mode` replaces the wrapped one as it is (tests rely on that).

Work mode itself (:func:`work_setup`): the data folder's ``AUTHORING.md`` (the bundled one when the
folder has none) + working directory and card file as the system prompt; the file tools, ``bash``,
``card_project`` and the switch as tools — every call judged by the sandbox like any other tool
call.  No draft, lore-writing or memory tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.authoring.segments import WORK_TAG
from peargarden.modes.work.bash_tool import BashTool
from peargarden.modes.work.card_tool import CardProjectTool
from peargarden.modes.work.file_tools import file_tools
from peargarden.modes.work.request import authoring_system, with_role_play_view, work_builder
from peargarden.modes.work.switch import WORK_MODE, ConversationModeTool
from peargarden.workspace.seed import bundled

if TYPE_CHECKING:
    from peargarden.app.modes import BeatEnv, ModeSetup

__all__ = ["WORK_MODE", "authoring_prompt", "install_work_mode", "role_play_setup", "work_setup"]

ROLE_PLAY_MODES = ("stage", "tavern")


def authoring_prompt(env: BeatEnv) -> str:
    path = env.card.home.authoring_file
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return bundled("AUTHORING.md").decode("utf-8")


def _mode_entry_type() -> str:
    from peargarden.app.modes import MODE_ENTRY_TYPE

    return MODE_ENTRY_TYPE


def work_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    system = authoring_system(authoring_prompt(env), env.card.path, env.card.card_file())
    tools: list[Tool] = [*file_tools(), BashTool(), CardProjectTool(), ConversationModeTool(_mode_entry_type())]
    return work_builder(system), tools


def role_play_setup(inner: ModeSetup, *, switch: bool) -> ModeSetup:
    """*inner* seeing work beats only as 【写卡维护】 lines; with ``switch``, plus ``conversation_mode``."""

    def setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
        builder, tools = inner(env)
        if switch and all(tool.name != ConversationModeTool.name for tool in tools):
            tools = [*tools, ConversationModeTool(_mode_entry_type())]
        return with_role_play_view(builder), tools

    setup.work_mode_wrapped = True  # type: ignore[attr-defined]
    return setup


def install_work_mode() -> None:
    """Register ``work`` and wrap the role-play modes (idempotent)."""
    from peargarden.app.modes import MODE_TAGS, MODES

    for name in ROLE_PLAY_MODES:
        inner = MODES.get(name)
        if inner is not None and not getattr(inner, "work_mode_wrapped", False):
            MODES[name] = role_play_setup(inner, switch=name == "stage")
    MODES[WORK_MODE] = work_setup
    MODE_TAGS[WORK_MODE] = [WORK_TAG]
