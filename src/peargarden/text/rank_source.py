"""Where this process's token counters get their rank tables: a front installs a faster source than
the packaged files (the data folder's cache, ``workspace.tokenizer_cache``); :mod:`.tokens` asks it.

Kept apart from :mod:`.tokens` so that installing a source loads nothing of token counting: every
``pear`` command installs one, and most never count.
"""

from __future__ import annotations

from collections.abc import Callable

Ranks = dict[bytes, int]

# A source is asked for the table of an encoding by its name and the sha256 of the packaged rank
# file it must equal, with the way to build it from that file (checked) when it has nothing better.
RankSource = Callable[[str, str, Callable[[], Ranks]], Ranks]


def _packaged(name: str, digest: str, build: Callable[[], Ranks]) -> Ranks:
    return build()


_source: RankSource = _packaged


def use_rank_source(source: RankSource | None) -> None:
    """This process's source of rank tables (``None``: the packaged files, checked and parsed again).
    A table already read stays: it is the same whichever source gave it."""
    global _source
    _source = source or _packaged


def rank_table(name: str, digest: str, build: Callable[[], Ranks]) -> Ranks:
    return _source(name, digest, build)
