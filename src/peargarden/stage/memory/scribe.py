"""The scene-note keeper's side call: its prompt, and reading its reply into a ledger patch."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .ledger import Ledger
from .lenient_json import find_object

__all__ = ["SCRIBE_MAX_TOKENS", "SCRIBE_SYSTEM", "parse_patch", "scribe_user_text"]

SCRIBE_MAX_TOKENS = 2048

SCRIBE_SYSTEM = """你是这场角色扮演的场记，只负责记账，不写剧情。
读【当前账本】和【本轮对话】，只输出一个 JSON 对象：{"patch": {…}}，写下本轮带来的持续性变化。

字段：
- "time"：剧情内时间（字符串，整体替换）；剧情里过了时间就必须往前推。
- "location"：当前地点（字符串，整体替换）。
- "characters"：{"人名": {"affinity": 整数, "status": "…", "notes": "…", "at": "此刻所在"}}，按字段合并。
  affinity 是对用户的好感，范围 -100..100，相对当前值每次只动 1–10；
  沿用账本里已有的人名写法，只有真正新出场的人才新建条目；作品名、剧本名不是人物。
- "inventory"：物品清单（完整列表，整体替换），写明归属。
- "flags"：{"键": "值"}，按键合并，值为 null 表示删除。
- "plot_threads"：未了结的剧情线（完整列表，整体替换）。

坏事也要记。没有变化的字段不要写；什么都没变就输出 {"patch": {}}。
不要解释，不要输出 JSON 以外的任何文字。"""


def scribe_user_text(ledger: Ledger, lines: Sequence[str]) -> str:
    current = {key: value for key, value in ledger.to_json().items() if key != "roster"}
    return (
        "【当前账本】\n" + json.dumps(current, ensure_ascii=False, indent=1) + "\n\n【本轮对话】\n" + "\n\n".join(lines)
    )


_PATCH_KEYS = frozenset({"time", "location", "characters", "inventory", "flags", "plot_threads"})


def parse_patch(reply: str) -> dict[str, Any] | None:
    """The patch in *reply*; ``{}`` when the object carries none; ``None`` when there is no object.

    A bare patch (the fields at the top level, without ``"patch"``) is accepted too: some models
    drop the wrapper."""
    found = find_object(reply)
    if found is None:
        return None
    patch = found.get("patch")
    if isinstance(patch, dict):
        return patch
    if patch is None and _PATCH_KEYS & set(found):
        return found
    return {}
