"""``# 消息流约定``: one bullet per bracketed data block the model meets in the messages (spec §2.3).

The text depends only on which tools exist, so it is byte-stable within a session.  Hints that
name a tool (``lorebook_search``, ``memory_search``, ``ask``) appear only when that tool is offered.
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["message_conventions"]


def message_conventions(tool_names: Collection[str]) -> str:
    lore_hint = "；正文要用 `lorebook_search` 取" if "lorebook_search" in tool_names else ""
    memory_hint = "（细节可用 `memory_search` 查）" if "memory_search" in tool_names else ""
    bullets = [
        "【开场】对话里的第一条回复是这张卡固定的开场白，剧情从它接着往下走。",
        "【前情提要】是更早剧情的接力摘要，属于既定事实。",
        "【世界状态】是当前的事实基线；故事记忆与它冲突时以它为准，在剧情里圆回来，不要出戏解释。",
        f"【登场名录】列出本局出现过的人物、地点、物品和剧情线及首次出现的时间{memory_hint}；"
        "不在名录里的名字就是新出现的。",
        "【活跃面板】是面板当前的内容，用户可能改过；与之相关的事实以面板为准。",
        "【相关设定】【设定集索引】给的是世界书条目的标题：前者是本拍关键词命中的，后者是整个设定集的"
        f"（可能有截断）。标题不等于正文{lore_hint}。"
        "若【相关设定】直接附了正文，那就是条目的全文。",
        "【剧情记忆】是检索到的早先正文片段，按需取用，不要整段照抄。",
    ]
    if "conversation_mode" in tool_names:
        bullets.append(
            "【写卡维护】开头的消息是用户与写卡 agent 关于这张卡本身的对话（工作模式），不是剧情，"
            "不要把其中的内容当作故事里发生的事。"
        )
    if "ask" in tool_names:
        bullets.append("【岔口】是你此前用 `ask` 交给用户的选择；紧接着的那条用户消息就是用户的回答。")
    return "# 消息流约定\n" + "\n".join(f"- {bullet}" for bullet in bullets)
