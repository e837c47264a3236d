"""Work mode (写卡维护), and the role-play modes around it.

:func:`role_play_setup` wraps a role-play mode of the table (:mod:`peargarden.modes.table`): it builds
its requests from the role-play view of the chat (work beats reduced to their 【写卡维护】 lines) and,
with ``switch``, offers the ``conversation_mode`` tool into work mode.

Work mode itself (:func:`work_setup`): the data folder's ``AUTHORING.md`` (the bundled one when the
folder has none) + working directory and card file as the system prompt; the file tools, ``bash``,
``card_project`` and the switch as tools — every call judged by the sandbox like any other tool
call.  No draft, lore-writing or memory tools.
"""

from __future__ import annotations

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.errors import FormatError
from peargarden.modes.work.bash_tool import BashTool
from peargarden.modes.work.card_tool import CardProjectTool
from peargarden.modes.work.file_tools import file_tools
from peargarden.modes.work.request import authoring_system, with_role_play_view, work_builder, work_scan
from peargarden.modes.work.switch import WORK_MODE, ConversationModeTool
from peargarden.sessions.scan import MessageScan
from peargarden.workspace.seed import bundled
from peargarden.workspace.text_files import read_user_text

from ..base import MODE_ENTRY_TYPE, BeatEnv, ModeSetup, chat_memo

__all__ = ["WORK_MODE", "authoring_prompt", "role_play_setup", "work_setup"]

# Where role_play_setup keeps the chat's work_scan in ``BeatEnv.cache``.
WORK_SCAN_KEY = "work.scan"


def authoring_prompt(env: BeatEnv) -> str:
    path = env.folder.home.authoring_file
    try:
        return read_user_text(path)
    except (OSError, FormatError):
        return bundled("AUTHORING.md").decode("utf-8")


def work_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    system = authoring_system(authoring_prompt(env), env.folder.path, env.folder.card_file())
    tools: list[Tool] = [*file_tools(), BashTool(), CardProjectTool(), ConversationModeTool(MODE_ENTRY_TYPE)]
    return work_builder(system), tools


def role_play_setup(inner: ModeSetup, *, switch: bool) -> ModeSetup:
    """*inner* seeing work beats only as 【写卡维护】 lines; with ``switch``, plus ``conversation_mode``."""

    def setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
        builder, tools = inner(env)
        if switch and all(tool.name != ConversationModeTool.name for tool in tools):
            tools = [*tools, ConversationModeTool(MODE_ENTRY_TYPE)]
        return with_role_play_view(builder, chat_memo(env, WORK_SCAN_KEY, MessageScan, work_scan)), tools

    return setup
