"""The seven stations a preset block can be declared as, and where each goes (spec liyuan §4.4)."""

from __future__ import annotations

from typing import Literal

import msgspec

Station = Literal["identity", "writing", "thinking", "draft", "output", "memory", "wrapper"]
DEFAULT_STATION: Station = "writing"


class StationInfo(msgspec.Struct, frozen=True):
    label: str
    meaning: str
    destination: str


STATIONS: dict[Station, StationInfo] = {
    "identity": StationInfo(
        "身份/破限",
        "“你是谁”：作者或角色的扮演身份、破限信、内容边界约定、反审查声明",
        "卡的 APPEND_SYSTEM.md（生效条目）",
    ),
    "writing": StationInfo(
        "写作规则",
        "写正文时遵守的规则：文风、描写限制、禁用词、对白规则、转述与续写规则、成人内容尺度、篇幅要求",
        "卡的 AGENTS.md（生效条目）",
    ),
    "thinking": StationInfo(
        "思考协议",
        "怎么想：思考模板、思考量要求、思考容器标签、逐条自检清单、思维链的开头与收尾",
        "AGENTS.md 的停用条目（原生思考与工具循环已替代）",
    ),
    "draft": StationInfo(
        "草稿协议",
        "正文怎么落笔：分段草稿、排练笔记（如段前的 HTML 注释）、修改仪式",
        "AGENTS.md 的停用条目（草稿工具已替代）",
    ),
    "output": StationInfo(
        "输出合约",
        "输出结构：模块顺序、正文包裹标签、每轮附加的状态栏/选项/总结、反审查输出仪式",
        "AGENTS.md 的停用条目（输出通道、面板与 ask 已替代）",
    ),
    "memory": StationInfo(
        "记忆记账",
        "给前端记忆系统的每轮总结、关键记忆、事件日志",
        "AGENTS.md 的停用条目（场记与世界状态已替代）",
    ),
    "wrapper": StationInfo(
        "材料包装",
        "包在卡内容外面的开合标签、小节标题、加载演出（如 “[World Loading...]”）",
        "不写入（拼装器自己会做）",
    ),
}


def is_station(value: object) -> bool:
    return isinstance(value, str) and value in STATIONS
