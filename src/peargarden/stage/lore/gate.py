"""The write gate (``creation_mode = "ask"``): the model writes settings only when the user asked.

The gate reads the user's own words of *this* beat and looks for write or delete intent with two
plain word lists (spec §8.6, case-insensitive substrings).  A tool whose name ends in ``_delete``
needs a delete word, ``_update`` needs either, every other gated tool needs a write word.  Known and
accepted gap: 改/修改/更正 are in neither list.

When the gate blocks, the receipt tells the model not to write *and not to ask the user whether to
write*: a blocked write is the end of it, unless the user asks later.
"""

from __future__ import annotations

import msgspec

__all__ = [
    "DELETE_WORDS",
    "GATED_TOOLS",
    "WRITE_WORDS",
    "GateVerdict",
    "check_write_gate",
    "has_delete_intent",
    "has_write_intent",
]

WRITE_WORDS: tuple[str, ...] = (
    "写入", "写进", "写一下", "记下", "记入", "记录", "记住", "牢记", "登记", "存进", "存到", "保存",
    "收藏", "归档", "收进", "收录", "固化", "入典", "沉淀", "备注", "补充设定", "世界书", "设定集",
    "知识库", "图鉴", "物志", "向量", "记忆库",
    "record", "save", "store", "remember", "memorize", "lorebook", "codex",
)  # fmt: skip

DELETE_WORDS: tuple[str, ...] = (
    "忘掉", "忘记", "忘了", "删掉", "删除", "删了", "去掉", "清除", "清掉", "移除", "撤掉", "不要了",
    "记错", "搞错", "弄错", "不对", "作废",
    "forget", "delete", "remove", "drop",
)  # fmt: skip

GATED_TOOLS: frozenset[str] = frozenset(
    {
        "lorebook_write",
        "lorebook_update",
        "lorebook_delete",
        "lorebook_create",
        "memory_add",
        "memory_delete",
        "memory_update",
    }
)

BLOCKED_WRITE = (
    "写入设定集需要用户明确要求。用户这一轮没有这样说，所以这次写入被拒绝了。"
    "不要写入，也不要询问用户「是否写入」；如果用户之后要求，再写。继续写正文。"
)
BLOCKED_DELETE = (
    "删除设定需要用户明确要求。用户这一轮没有这样说，所以这次删除被拒绝了。"
    "不要删除，也不要询问用户「是否删除」；如果某条设定有误，就在正文里绕开它。继续写正文。"
)


def has_write_intent(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in WRITE_WORDS)


def has_delete_intent(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in DELETE_WORDS)


class GateVerdict(msgspec.Struct, frozen=True):
    allowed: bool
    receipt: str = ""  # what the model is told when blocked


def check_write_gate(tool_name: str, user_text: str, creation_mode: str) -> GateVerdict:
    """Whether *tool_name* may write this beat.  Only ``creation_mode == "ask"`` gates anything."""
    if creation_mode != "ask" or tool_name not in GATED_TOOLS:
        return GateVerdict(True)
    text = user_text or ""
    if tool_name.endswith("_delete"):
        return GateVerdict(True) if has_delete_intent(text) else GateVerdict(False, BLOCKED_DELETE)
    if tool_name.endswith("_update"):
        if has_write_intent(text) or has_delete_intent(text):
            return GateVerdict(True)
        return GateVerdict(False, BLOCKED_WRITE)
    return GateVerdict(True) if has_write_intent(text) else GateVerdict(False, BLOCKED_WRITE)
