"""The per-beat injection: data blocks placed in the last user message, before the user's words.

Order (spec §2.4): 【世界状态】, 【登场名录】, 【活跃面板】 (filled by story memory later: omitted while
``None``), 【相关设定】 (this beat's keyword hits), 【设定集索引】, 【剧情记忆】, 【卡作者末端指令】
(without ``AGENTS.md``), 【语言】.

Keyword hits: with thinking on the model gets titles only and fetches bodies with ``lorebook_search``;
with thinking ``off`` (or an unknown level) it gets the bodies, SillyTavern-style, because models that
do not think rarely call tools.  With a :class:`~.part_budget.PartBudget`, a block (or a hit's body)
larger than the whole request may be is left out with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from peargarden.stage.lore.entries import LoreEntry

from .card import apply_macros
from .macros import Macros
from .part_budget import PartBudget

__all__ = [
    "THINKING_ON_LEVELS",
    "Injection",
    "build_injection",
    "language_line",
    "lore_hits_block",
    "passive_lore",
]

THINKING_ON_LEVELS = frozenset({"minimal", "low", "medium", "high", "xhigh"})


def passive_lore(thinking: str | None) -> bool:
    """True when hits carry their bodies: thinking ``off`` or anything we do not know."""
    return thinking not in THINKING_ON_LEVELS


def lore_hits_block(
    hits: Sequence[LoreEntry],
    thinking: str | None,
    char_name: str,
    user_name: str,
    macros: Macros | None = None,
    budget: PartBudget | None = None,
) -> str:
    m = macros if macros is not None else (lambda text: apply_macros(text, char_name, user_name))
    titled = [entry for entry in hits if entry.title]
    if not titled:
        return ""
    if not passive_lore(thinking):
        return f"【相关设定】本拍命中 {len(titled)} 条：{'、'.join(m(e.title) for e in titled)}"
    lines = [f"- 【{m(e.title)}】{m(e.content.strip())}" for e in titled]
    if budget is not None:
        kept = zip(titled, lines, strict=True)
        lines = [line for entry, line in kept if budget.keep(f"设定「{m(entry.title)}」", line)]
    return "【相关设定】\n" + "\n".join(lines) if lines else ""


def language_line(language: str) -> str:
    """The language line, or ``""`` when the language is unknown (then the model follows the card)."""
    return f"【语言】以{language}写叙事与对白（专有名词可保留原文）。" if language.strip() else ""


class Injection(msgspec.Struct, frozen=True):
    text: str
    hits: tuple[LoreEntry, ...]


def build_injection(
    *,
    hits: Sequence[LoreEntry],
    thinking: str | None,
    index_block: str,
    language: str,
    char_name: str,
    user_name: str,
    post_history: str = "",
    world_state: str | None = None,
    roster: str | None = None,
    panels: str | None = None,
    memory: str | None = None,
    macros: Macros | None = None,
    budget: PartBudget | None = None,
) -> Injection:
    """The data blocks of one beat, joined by blank lines (*macros* over lore titles, bodies, the
    index and the card's post-history instructions; *budget*: each block held to it)."""
    m = macros if macros is not None else (lambda text: apply_macros(text, char_name, user_name))

    def kept(label: str, text: str) -> str:
        return text if budget is None else budget.keep(label, text)

    blocks: list[str] = []
    if world_state is not None:
        blocks.append("【世界状态】\n" + (kept("世界状态", world_state.strip()) or "（尚无记录）"))
    if roster is not None:
        blocks.append("【登场名录】" + (kept("登场名录", roster.strip()) or "（尚无登记）"))
    if panels and kept("活跃面板", panels.strip()):
        blocks.append("【活跃面板】\n" + panels.strip())
    hits_block = lore_hits_block(hits, thinking, char_name, user_name, m, budget)
    if hits_block:
        blocks.append(hits_block)
    if index_block:
        blocks.append(m(index_block))
    if memory and kept("剧情记忆", memory.strip()):
        blocks.append("【剧情记忆】\n" + memory.strip())
    post = post_history.replace("{{original}}", "").strip()
    label = "角色卡的末端指令（post_history_instructions）"
    post = m(post) if budget is None else budget.keep_rendered(label, post, m)
    if post:
        blocks.append("【卡作者末端指令】\n" + post)
    if language_line(language):
        blocks.append(language_line(language))
    return Injection("\n\n".join(blocks), tuple(hits))
