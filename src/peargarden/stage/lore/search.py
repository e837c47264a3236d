"""``lorebook_search``: score entries against a free-text query (spec §8.4).

The query is lower-cased and split on every run of characters that are neither letters nor digits;
terms shorter than two characters are dropped.  Per term and entry: **+5** when a key (primary or
secondary) contains the term or the term contains the key, **+3** when the title contains the term,
**+1** per occurrence in the body, at most 3 per term.  Entries scoring 0 are left out; the rest are
sorted by score (ties keep book order).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import msgspec

from .entries import LoreEntry

__all__ = [
    "NO_HIT_TEXT",
    "STAGE_SEARCH_LIMIT",
    "SearchHit",
    "format_search_hits",
    "search_entries",
    "split_terms",
]

STAGE_SEARCH_LIMIT = 3
BODY_CAP = 3

NO_HIT_TEXT = (
    "设定集里没有写到这一点。这个细节由谁来定：你可以依照已有事实自行创造，也可以用 ask 交给用户决定；"
    "无论哪种，都要与已知设定一致。重要的新设定会在收笔后由场记记下。"
)


def _is_term_char(char: str) -> bool:
    # Unicode letters (L*) and digits/numbers (N*), like JavaScript's [\p{L}\p{N}].
    return unicodedata.category(char)[0] in "LN"


def split_terms(query: str) -> list[str]:
    """Lower-cased terms of at least two characters, in query order, without repeats."""
    terms: list[str] = []
    current: list[str] = []
    for char in query.lower() + " ":
        if _is_term_char(char):
            current.append(char)
            continue
        if len(current) >= 2:
            term = "".join(current)
            if term not in terms:
                terms.append(term)
        current = []
    return terms


class SearchHit(msgspec.Struct, frozen=True):
    entry: LoreEntry
    score: int


def _score(entry: LoreEntry, terms: Sequence[str]) -> int:
    keys, title, body = entry.lowered
    score = 0
    for term in terms:
        if any(term in key or key in term for key in keys):
            score += 5
        if title and term in title:
            score += 3
        score += min(body.count(term), BODY_CAP)
    return score


def search_entries(entries: Sequence[LoreEntry], query: str, limit: int = STAGE_SEARCH_LIMIT) -> list[SearchHit]:
    """The best *limit* enabled entries for *query*; ``[]`` when the query has no usable term."""
    terms = split_terms(query)
    if not terms or limit <= 0:
        return []
    hits = [SearchHit(entry, score) for entry in entries if entry.enabled and (score := _score(entry, terms)) > 0]
    hits.sort(key=lambda hit: -hit.score)
    return hits[:limit]


def format_search_hits(hits: Sequence[SearchHit], *, show_book: bool = True) -> str:
    """The text the model gets: one block per hit, separated by a blank line."""
    if not hits:
        return NO_HIT_TEXT
    blocks: list[str] = []
    for hit in hits:
        entry = hit.entry
        title = entry.title or "条目"
        keys = [k.strip() for k in entry.keys if k.strip()]
        head = f"### {title}（关键词：{'、'.join(keys)}）" if keys else f"### {title}"
        lines = [head, f"ref: lore:{entry.fp}"]
        if show_book and entry.book:
            lines.append(f"来源：{entry.book}")
        lines.append(entry.content.strip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
