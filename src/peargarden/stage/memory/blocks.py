"""The ledger as the stage shows it: the 【世界状态】 lines and the 【登场名录】 index (spec §2.4).

Only the text after the block titles is made here; :func:`peargarden.stage.injection.build_injection`
adds the titles and the ``（尚无记录）`` / ``（尚无登记）`` placeholders for empty text.
"""

from __future__ import annotations

from .ledger import Ledger

__all__ = ["ROSTER_SECTION_MAX", "format_roster", "format_state"]

# A roster section longer than this falls back to bare names (names themselves are never cut).
ROSTER_SECTION_MAX = 1200

_SECTIONS = (("characters", "人物"), ("items", "物品"), ("events", "剧情线"))


def format_state(ledger: Ledger) -> str:
    lines: list[str] = []
    if ledger.time:
        lines.append(f"时间：{ledger.time}")
    if ledger.location:
        lines.append(f"地点：{ledger.location}")
    for name, person in ledger.characters.items():
        parts = []
        if person.affinity is not None:
            parts.append(f"好感 {person.affinity}")
        if person.status:
            parts.append(f"状态：{person.status}")
        if person.notes:
            parts.append(f"备注：{person.notes}")
        if person.at:
            parts.append(f"所在：{person.at}")
        lines.append(f"{name}：{'；'.join(parts)}" if parts else name)
    if ledger.inventory:
        lines.append("物品：" + "、".join(ledger.inventory))
    lines.extend(f"{key}：{value}" for key, value in ledger.flags.items())
    if ledger.plot_threads:
        lines.append("剧情线：" + " ".join(f"「{thread}」" for thread in ledger.plot_threads))
    return "\n".join(lines)


def _section(names: dict[str, str]) -> str:
    full = "、".join(f"{name}（{seen}）" if seen else name for name, seen in names.items())
    if len(full) <= ROSTER_SECTION_MAX:
        return full
    return "、".join(names)


def format_roster(ledger: Ledger) -> str:
    parts = [f"{title}：{_section(ledger.roster.get(key, {}))}" for key, title in _SECTIONS if ledger.roster.get(key)]
    return "；".join(parts)
