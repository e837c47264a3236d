"""How much of a reply, as it grows, is pasted from the story's texts (the copy block's second bound).

Banned from running on past ten characters of a lore entry, Qwen2.5-0.5B went round the ban: it
changed a character and pasted on — 「竹骨断了一根，伞面上的手绘的几枝桃花已褪成深褐色」 (的 added, 浅
made 深), 「前厅五张方桌，柜台后是账箱」 — and on the English card it wrote the greeting out again with
"lowfire" for "low fire".  No run was long; most of the reply was still the prompt's.  So the share
is bounded too: the units of the reply that lie in runs of :data:`PASTE_RUN` or more units of a
source may be at most :data:`PASTE_SHARE` of the reply's units plus :data:`PASTE_SLACK` — a name
and a phrase of the lore fit (「县城沈家的小儿子」 in a reply of twenty characters), a pasted
paragraph with a word changed every few characters does not.

Units are the copy block's (:func:`._copy_block.run_length`: a Chinese character or a punctuation
mark one, a word of English one).  Pure; the reply's coverage is kept between calls, since the reply
only grows.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["PASTE_RUN", "PASTE_SHARE", "PASTE_SLACK", "PasteMeter"]

#: A run of the sources this long (units) counts as pasted; shorter ones are words (镇北渡口).
PASTE_RUN = 5
#: At most this share of a reply's units may lie in pasted runs …
PASTE_SHARE = 0.4
#: … plus this many.
PASTE_SLACK = 6


class PasteMeter:
    """The pasted share of a growing reply.  *sources* is one text (the sources joined by a
    character none of them holds); *measure* counts units."""

    def __init__(
        self,
        sources: str,
        measure: Callable[[str], int],
        *,
        run: int = PASTE_RUN,
        share: float = PASTE_SHARE,
        slack: int = PASTE_SLACK,
    ) -> None:
        self._sources = sources
        self._measure = measure
        self.run, self.share, self.slack = run, share, slack
        self._text = ""
        self._longest: list[int] = []  # per character: the longest run of the sources ending there
        self._covered: list[bool] = []  # per character: inside a run of `run` units or more
        self._pasted: int | None = None  # the units of the text seen in pasted runs (when counted)

    def too_much(self, text: str, size: int, piece: str) -> bool:
        """Whether *piece* after *text* — whose last *size* characters are a run of the sources
        that *piece* continues — makes the reply more pasted than allowed."""
        self._follow(text)
        start = len(text) - size
        if self._measure(text[start:] + piece) < self.run:
            return False  # still a word: nothing new pasted
        fresh = "".join(char for char, done in zip(text[start:], self._covered[start:], strict=True) if not done)
        pasted = self._pasted_units() + self._measure(fresh + piece)
        return pasted > self.share * self._measure(text + piece) + self.slack

    def _follow(self, text: str) -> None:
        """Bring the coverage up to *text* (from scratch when it is not the text seen before, grown)."""
        if text == self._text:
            return
        self._pasted = None
        if not text.startswith(self._text):
            self._text, self._longest, self._covered = "", [], []
        for end in range(len(self._text) + 1, len(text) + 1):
            # A run ending here is at most one longer than the one ending before (substrings of a
            # source are in the source).
            length = min(end, (self._longest[-1] if self._longest else 0) + 1)
            while length and text[end - length : end] not in self._sources:
                length -= 1
            self._longest.append(length)
            self._covered.append(False)
            if length and self._measure(text[end - length : end]) >= self.run:
                self._covered[end - length : end] = [True] * length
        self._text = text

    def _pasted_units(self) -> int:
        """The units of the text seen that lie in pasted runs (each covered stretch measured whole)."""
        if self._pasted is None:
            self._pasted = self._count_pasted()
        return self._pasted

    def _count_pasted(self) -> int:
        total, stretch = 0, []
        for char, done in zip(self._text, self._covered, strict=True):
            if done:
                stretch.append(char)
            elif stretch:
                total += self._measure("".join(stretch))
                stretch = []
        return total + (self._measure("".join(stretch)) if stretch else 0)
