"""The modes a front offers beyond the plain fallbacks: the stage mode and a minimal work mode.

``install_modes()`` puts the stage package's setup into the app's mode table (when the table still
holds the plain fallback) and adds ``work``: the stage request with the file tools and ``bash``,
every call judged by the sandbox.  This is the smallest work mode a front needs to show the approval
flow; the full work mode (its own system prompt, the switch tool, the ``work`` tag) replaces it by
registering ``work`` itself.
"""

from __future__ import annotations

from peargarden.agent.bash_tool import BashTool
from peargarden.agent.file_tools import EditTool, FindTool, GrepTool, LsTool, ReadTool, WriteTool
from peargarden.agent.loop import RequestBuilder
from peargarden.agent.stage_request import stage_setup
from peargarden.agent.tools import Tool

from .modes import MODES, BeatEnv, plain_setup, register_mode

WORK_MODE = "work"


def work_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    builder, _stage_tools = stage_setup(env)
    tools: list[Tool] = [ReadTool(), WriteTool(), EditTool(), LsTool(), GrepTool(), FindTool(), BashTool()]
    return builder, tools


def install_modes() -> None:
    """Register the stage mode and the work mode (idempotent; a mode someone else registered stays)."""
    if MODES.get("stage") is plain_setup:
        register_mode("stage", stage_setup)
    if WORK_MODE not in MODES:
        register_mode(WORK_MODE, work_setup)
