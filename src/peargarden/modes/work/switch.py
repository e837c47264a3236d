"""The mode switch the model calls itself: ``conversation_mode`` (always offered on stage and in work mode).

``mode: "authoring"`` asks the loop to go on in work mode (写卡维护): the next model call of the same
beat gets the authoring system prompt and the work tools.  ``mode: "roleplay"`` goes back to the
role-play mode the chat came from and ends the beat — the model waits for the user's next story
words; what was said in work mode stays in the session but never enters the story
(:mod:`peargarden.authoring.segments`).
"""

from __future__ import annotations

from typing import Any

from peargarden.agent.loop import MODE_SWITCH_KEY
from peargarden.agent.tools import Tool, ToolContext, ToolResult
from peargarden.authoring.segments import MODE_SWITCH_TOOL

WORK_MODE = "work"

DESCRIPTION = (
    "切换本会话的模式：roleplay（扮演）或 authoring（工作模式，写卡维护）。用户想改这张卡、它的世界书、"
    "开场白、正则、脚本或前端时切到 authoring：同一拍里就会换上工作用的说明和工具（读写文件、bash、"
    "card_project），这段请求和操作不会进入故事。改完后切回 roleplay，然后等用户的下一句故事输入。"
    "不会新开对话，也不会删除任何内容。"
)

ENTERED = (
    "已切换到工作模式（写卡维护）。这段对话不进入故事。卡展开在 创作/，用 card_project 展开、检查、写回；"
    "改完切回 roleplay。"
)
RETURNED = "已切回扮演模式。这段写卡维护不会进入故事；本拍到此结束，等用户的下一句。"


class ConversationModeTool(Tool):
    name = MODE_SWITCH_TOOL
    description = DESCRIPTION
    parameters: dict[str, Any] = {  # noqa: RUF012
        "type": "object",
        "properties": {"mode": {"type": "string", "enum": ["roleplay", "authoring"]}},
        "required": ["mode"],
    }
    access = "none"

    def __init__(self, mode_entry_type: str = "mode", default_role_play: str = "stage") -> None:
        # Mode changes are custom entries of this type on the branch; going back returns to the
        # latest role-play mode recorded there.
        self._entry_type = mode_entry_type
        self._default = default_role_play

    def _role_play_mode(self, ctx: ToolContext) -> str:
        for data in reversed(ctx.customs(self._entry_type)):
            mode = data.get("mode") if isinstance(data, dict) else None
            if isinstance(mode, str) and mode and mode != WORK_MODE:
                return mode
        return self._default

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args.get("mode") == "authoring":
            if ctx.mode == WORK_MODE:
                return ToolResult("已经在工作模式。")
            ctx.beat_state[MODE_SWITCH_KEY] = WORK_MODE
            return ToolResult(ENTERED, details={"mode": WORK_MODE})
        if ctx.mode != WORK_MODE:
            return ToolResult("已经在扮演模式。")
        back = self._role_play_mode(ctx)
        ctx.beat_state[MODE_SWITCH_KEY] = back
        return ToolResult(RETURNED, details={"mode": back}, ends_beat=True)
