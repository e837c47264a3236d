"""The title index 【设定集索引】: every enabled keyword entry's title, packed into a budget (spec §2.4).

Blue (constant) entries are already in the system prompt and stay out.  Titles are listed in entry
order until the next one would pass :data:`LORE_INDEX_MAX_CHARS` (one separator counted per title);
the rest are counted, so the model knows the list is cut and can use ``lorebook_list``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .entries import LoreEntry

__all__ = ["LORE_INDEX_MAX_CHARS", "index_titles", "title_index_block"]

LORE_INDEX_MAX_CHARS = 2000


def index_titles(entries: Sequence[LoreEntry]) -> list[str]:
    """Titles of enabled non-constant entries, in order (entries without a title are skipped)."""
    return [entry.title for entry in entries if entry.enabled and not entry.constant and entry.title]


def title_index_block(entries: Sequence[LoreEntry], max_chars: int = LORE_INDEX_MAX_CHARS) -> str:
    """``【设定集索引】共 N 条：A、B……等（另 k 条未列出）``, or ``""`` when there is no title."""
    titles = index_titles(entries)
    if not titles:
        return ""
    listed: list[str] = []
    used = 0
    for title in titles:
        if used + len(title) + 1 > max_chars:
            break
        listed.append(title)
        used += len(title) + 1
    rest = len(titles) - len(listed)
    block = f"【设定集索引】共 {len(titles)} 条：{'、'.join(listed)}"
    if rest:
        block += f"……等（另 {rest} 条未列出，可用 lorebook_list 查看）"
    return block
