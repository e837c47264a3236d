"""The side model's labelling call: our prompt (Chinese) and a lenient reading of its reply."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, cast

import msgspec

from .compile import Piece
from .stations import DEFAULT_STATION, STATIONS, Station, is_station

_WHERE_TEXT = {"before": "历史前", "after": "历史后", "depth": "深度注入"}
_FENCE = re.compile(r"```(?:json)?", re.IGNORECASE)


def label_prompt(preset_name: str, pieces: Sequence[Piece]) -> tuple[str, str]:
    """(system, user) for the side model."""
    lines = [
        "你负责分析一份角色扮演预设的结构。输入是引擎按 SillyTavern 顺序编译出的线性提示词，按来源块切成若干分段；"
        "每段的标题行写着 ⟨标识｜角色｜位置｜块名⟩。",
        "请为每一段声明一个“站点”，只能从下面七个里选：",
    ]
    for station, info in STATIONS.items():
        lines.append(f"- {station}：{info.label}。{info.meaning}（去向：{info.destination}）")
    lines += [
        "规则：",
        "1. 破限、身份类内容一律归 identity，不要删减。",
        "2. 拿不准时归 writing（保守保留）。",
        "3. 只做分类，不评价、不改写内容。",
        "4. 位置和角色只是线索，不是判据。",
        "输出：只输出一个 JSON 数组，每段一项，不要别的文字："
        '[{"id":"<标识>","station":"<站点>","note":"<二十字以内的理由>"}]',
    ]
    parts = [f"预设「{preset_name}」。分段内容如下（⟦…⟧ 标记行是分段信息，不属于分段正文）："]
    for index, piece in enumerate(pieces, start=1):
        header = f"⟦片段{index}｜{piece.id}｜{piece.role}｜{_WHERE_TEXT[piece.where]}｜{piece.name}⟧"
        parts.append(f"{header}\n{piece.text}")
    return "\n".join(lines), "\n\n".join(parts)


class Labels(msgspec.Struct):
    """Stations by piece id, with notes; ``defaulted`` lists pieces that fell back to writing."""

    stations: dict[str, Station] = msgspec.field(default_factory=dict)
    notes: dict[str, str] = msgspec.field(default_factory=dict)
    defaulted: list[str] = msgspec.field(default_factory=list)
    unknown: list[str] = msgspec.field(default_factory=list)


def _items(reply: str) -> list[Any]:
    text = _FENCE.sub("", reply)
    start, end = text.find("["), text.rfind("]")
    if start == -1 or end <= start:
        return []
    try:
        value = json.loads(text[start : end + 1])
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def parse_labels(reply: str, pieces: Sequence[Piece]) -> Labels:
    """Fences and text around the array are ignored; a bad or missing station becomes writing."""
    declared: dict[str, tuple[Any, str]] = {}
    for item in _items(reply):
        if not isinstance(item, dict):
            continue
        ident = item.get("id", item.get("identifier"))
        if isinstance(ident, str) and ident not in declared:
            declared[ident] = (item.get("station"), str(item.get("note") or "")[:60])
    labels = Labels()
    for piece in pieces:
        station, note = declared.get(piece.id, (None, ""))
        if piece.id not in declared:
            labels.defaulted.append(piece.id)
        elif not is_station(station):
            labels.unknown.append(piece.id)
        labels.stations[piece.id] = cast(Station, station) if is_station(station) else DEFAULT_STATION
        labels.notes[piece.id] = note
    return labels
