"""Split inline ``<think>…</think>`` reasoning out of streamed content.

Some local setups (llama.cpp without a reasoning parser, older Ollama, raw Qwen/DeepSeek-R1
templates) put the model's reasoning into ``content`` between think tags.  The tags can arrive
split across chunks (``"<thi"`` + ``"nk>"``), so a possible tag prefix at the end of a chunk is
held back until the next chunk decides it.
"""

from __future__ import annotations

from typing import Literal

OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"

Kind = Literal["text", "thinking"]


class ThinkTagSplitter:
    """Feed content chunks; get back ``(kind, text)`` pieces in order."""

    def __init__(self) -> None:
        self._inside = False
        self._pending = ""

    def feed(self, chunk: str) -> list[tuple[Kind, str]]:
        data = self._pending + chunk
        self._pending = ""
        out: list[tuple[Kind, str]] = []
        while data:
            tag = CLOSE_TAG if self._inside else OPEN_TAG
            kind: Kind = "thinking" if self._inside else "text"
            found = data.find(tag)
            if found >= 0:
                if found:
                    out.append((kind, data[:found]))
                data = data[found + len(tag) :]
                self._inside = not self._inside
                continue
            keep = _partial_tag_suffix(data, tag)
            if keep:
                self._pending = data[-keep:]
                data = data[:-keep]
            if data:
                out.append((kind, data))
            break
        return out

    def held_text(self) -> str:
        """What is held back that :meth:`flush` would give as plain text."""
        return "" if self._inside else self._pending

    def flush(self) -> list[tuple[Kind, str]]:
        """End of stream: whatever was held back is plain content of the current kind."""
        rest, self._pending = self._pending, ""
        if not rest:
            return []
        return [("thinking" if self._inside else "text", rest)]


def _partial_tag_suffix(data: str, tag: str) -> int:
    """Length of the longest suffix of *data* that is a proper prefix of *tag*."""
    if "<" not in data[1 - len(tag) :]:
        return 0  # every tag starts with "<": the common case, decided without the loop
    for size in range(min(len(tag) - 1, len(data)), 0, -1):
        if data.endswith(tag[:size]):
            return size
    return 0
