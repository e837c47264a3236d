"""Word wrap for text streamed to a terminal.

A terminal breaks a long line wherever the last column falls, so an English reply reads
"cla" / "sping your hands".  :class:`StreamWrap` takes the reply as it streams and breaks lines
between words instead: a word (a run of narrow letters, digits and punctuation) is held until it
ends, then goes on this line or the next.  Chinese, Japanese and Korean characters are two columns
wide and may break anywhere, as they do in print; a word longer than a whole line is broken
where it must.  Pure: the printer writes what ``feed`` and ``flush`` return.
"""

from __future__ import annotations

import unicodedata

__all__ = ["StreamWrap", "columns"]

_TAB = 8


def columns(char: str) -> int:
    """How many terminal columns *char* takes: 2 for wide characters, 0 for combining marks."""
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    if unicodedata.combining(char) or char in "\u200b\u200d\ufe0f":
        return 0
    return 1


class StreamWrap:
    """Text in as it streams, text out with line breaks between words at *width* columns.

    Spaces are written before the word that follows them, so a line never ends in the spaces a
    break replaced; spaces that open a line of the text itself (an indented list, a poem) stay."""

    def __init__(self, width: int) -> None:
        self.width = max(8, width)
        self.column = 0
        self._word: list[str] = []
        self._word_columns = 0
        self._spaces = 0  # waiting: written before the next word, dropped where a line breaks
        self._broken = False  # this line was started by a break of ours, not by the text

    def feed(self, text: str) -> str:
        out: list[str] = []
        for char in text:
            if char == "\n":
                out.append(self._end_word())
                out.append("\n")
                self.column, self._spaces, self._broken = 0, 0, False
            elif char == " ":
                out.append(self._end_word())
                self._spaces += 1
            elif char == "\t":
                out.append(self._end_word())
                self._spaces += _TAB - (self.column + self._spaces) % _TAB
            elif columns(char) == 2:
                out.append(self._end_word())
                out.append(self._place(char, 2))
            else:
                self._word.append(char)
                self._word_columns += columns(char)
                if self._word_columns >= self.width:  # longer than a line: break it here
                    out.append(self._end_word())
        return "".join(out)

    def flush(self) -> str:
        """What is still held (the last word; waiting spaces are dropped)."""
        out = self._end_word()
        self._spaces = 0
        return out

    def reset(self) -> None:
        """The printer started a new line itself: count columns from its start."""
        self.flush()
        self.column, self._broken = 0, False

    def _end_word(self) -> str:
        if not self._word:
            return ""
        word, size = "".join(self._word), self._word_columns
        self._word, self._word_columns = [], 0
        return self._place(word, size)

    def _place(self, text: str, size: int) -> str:
        """*text* (*size* columns) on this line after the waiting spaces, or at the start of the next."""
        lead = self._spaces if self.column > 0 or not self._broken else 0
        self._spaces = 0
        if self.column > 0 and self.column + lead + size > self.width:
            self.column, self._broken = size, True
            return "\n" + text
        self.column += lead + size
        return " " * lead + text
