"""Which existing names a mistyped one probably meant (a card, a preset, a lorebook), for the
"no such …" messages: ``seraphina`` for ``Seraphina``, ``青`` for ``青梧``, ``Defualt`` for
``Default``.  Pure; the callers list the names."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "near_names"]


def near_names(wanted: str, names: Iterable[str], *, limit: int = 3) -> list[str]:
    """Up to *limit* of *names* close to *wanted*, best first: the same name but for letter case,
    then names that hold it or that it holds (a short Chinese name is often a prefix: 青 → 青梧),
    then names a few letters away (a typo: difflib's ratio of at least 0.6)."""
    key = wanted.strip().casefold()
    if not key:
        return []
    pool = list(dict.fromkeys(name for name in names if name.strip()))
    folded = {name: name.casefold() for name in pool}
    same = [name for name in pool if folded[name] == key]
    within = [name for name in pool if name not in same and (key in folded[name] or folded[name] in key)]
    close = difflib.get_close_matches(key, [folded[name] for name in pool], n=limit, cutoff=0.6)
    typos = [name for match in close for name in pool if folded[name] == match]
    found = list(dict.fromkeys(same + sorted(within, key=len) + typos))
    return found[:limit]


def did_you_mean(wanted: str, names: Iterable[str]) -> str:
    """The end of a "no such …" message naming the near names, or ``""`` when there is none."""
    near = near_names(wanted, names)
    if not near:
        return ""
    return "；是不是想找：" + "、".join(f"「{name}」" for name in near) + "（did you mean）"
