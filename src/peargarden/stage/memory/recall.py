"""Optional memory recall (【剧情记忆】): BM25 over earlier prose of this story, no model needed.

Terms are lower-cased words of letters/digits plus overlapping CJK bigrams (and single CJK
characters for one-character runs), so 「怀瑾公子」 matches 「怀瑾」 without a segmenter.  The caller
passes a deadline function: past it, scoring stops and recall returns what it has (nothing is
better than a late beat).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["RecallIndex", "recall_block", "terms"]


# Compiled on first use: recall is optional, and ``re`` fills a table entry per code point of the
# class (~28,000, ~13 M instructions) in every stage beat that imports this module.
@lru_cache(maxsize=1)
def _cjk_run() -> re.Pattern[str]:
    return re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


_WORD = re.compile(r"[^\W_]+")
K1 = 1.5
B = 0.75
SNIPPET_MAX = 300


def terms(text: str) -> list[str]:
    out: list[str] = []
    lowered = text.lower()
    for run in _cjk_run().findall(lowered):
        if len(run) == 1:
            out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    for word in _WORD.findall(_cjk_run().sub(" ", lowered)):
        out.append(word)
    return out


# A dataclass, not a msgspec Struct: it keeps derived tables (_tf, _df…) beside its field.
@dataclass
class RecallIndex:
    docs: list[str]

    def __post_init__(self) -> None:
        self._tf = [Counter(terms(doc)) for doc in self.docs]
        self._len = [sum(tf.values()) for tf in self._tf]
        self._avg = (sum(self._len) / len(self._len)) if self._len else 0.0
        df: Counter[str] = Counter()
        for tf in self._tf:
            df.update(tf.keys())
        self._df = df

    def search(self, query: str, limit: int = 3, expired: Callable[[], bool] = lambda: False) -> list[int]:
        """Indices of the best documents for *query* (score > 0), best first."""
        query_terms = set(terms(query))
        n = len(self.docs)
        scores: list[tuple[float, int]] = []
        for index, tf in enumerate(self._tf):
            if index % 256 == 0 and expired():
                break
            score = 0.0
            for term in query_terms:
                freq = tf.get(term)
                if not freq:
                    continue
                df = self._df[term]
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                norm = freq + K1 * (1 - B + B * self._len[index] / (self._avg or 1))
                score += idf * freq * (K1 + 1) / norm
            if score > 0:
                scores.append((score, index))
        scores.sort(key=lambda pair: (-pair[0], pair[1]))
        return [index for _score, index in scores[:limit]]


def recall_block(
    docs: Sequence[str], query: str, *, limit: int = 3, expired: Callable[[], bool] = lambda: False
) -> str:
    """Lines ``- snippet`` for the best earlier passages; ``""`` when nothing matches."""
    if not docs or not query.strip():
        return ""
    index = RecallIndex(list(docs))
    hits = index.search(query, limit, expired)
    lines = []
    for hit in sorted(hits):
        text = " ".join(docs[hit].split())
        lines.append("- " + (text[:SNIPPET_MAX] + "……" if len(text) > SNIPPET_MAX else text))
    return "\n".join(lines)
