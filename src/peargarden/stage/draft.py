"""The draft sheet: the beat's prose is an artefact the model writes, edits and seals (spec §9.3).

Tools (see ``modes/stage/tools.py``): ``draft_write`` creates or replaces the draft, ``draft_append``
adds to it, ``draft_edit`` replaces one exact passage, ``draft_seal`` finishes the beat.  Every change
bumps ``version``; a tool call that names an older version is refused (re-read first), which keeps a
model from editing text it has not seen.

Prose capture, for models that never touch the sheet: text the model streams while it has made no
explicit write is captured as the draft (:meth:`DraftSheet.capture`).  At the end of the beat
(:func:`finish_beat`) the prose is the sealed draft; a beat that wrote explicitly but never sealed is
kept and flagged; plain streamed text counts as sealed.  After sealing, only *format* blocks from the
text channel (fenced blocks, ``<tag>…</tag>`` blocks, e.g. a status bar the card asks for) are added;
free text after the draft is dropped.  Offsets and lengths are Python characters.
"""

from __future__ import annotations

import re

import msgspec

from peargarden.errors import BadInput, ConflictError

__all__ = [
    "EMPTY_BEAT_WARNING",
    "UNSEALED_WARNING",
    "BeatProse",
    "DraftSheet",
    "finish_beat",
    "format_blocks",
]

EMPTY_BEAT_WARNING = "本拍模型未交出任何正文"
UNSEALED_WARNING = "稿件已保存，本拍尚未收笔"


class DraftSheet(msgspec.Struct):
    text: str = ""
    version: int = 0
    sealed: bool = False
    explicit: bool = False  # the model used a draft tool this beat
    # Text streamed in the text channel, kept for the format tail.
    streamed: list[str] = msgspec.field(default_factory=list)

    def _check(self, version: int | None) -> None:
        if self.sealed:
            raise ConflictError("稿件已收笔，不能再改。")
        if version is not None and version != self.version:
            raise ConflictError(f"稿件已是版本 v{self.version}（你给的是 v{version}），请按最新稿件再改。")

    def write(self, content: str, version: int | None = None) -> int:
        self._check(version)
        self.text = content.strip("\n")
        self.explicit = True
        self.version += 1
        return self.version

    def append(self, content: str, version: int | None = None) -> int:
        self._check(version)
        addition = content.strip("\n")
        self.text = f"{self.text}\n\n{addition}" if self.text.strip() else addition
        self.explicit = True
        self.version += 1
        return self.version

    def edit(self, old: str, new: str, version: int | None = None) -> int:
        """Replace the one occurrence of *old* with *new*."""
        self._check(version)
        if not old:
            raise BadInput("old_text 不能为空。")
        count = self.text.count(old)
        if count == 0:
            raise BadInput("稿件里找不到 old_text；先确认原文（逐字一致）。")
        if count > 1:
            raise BadInput(f"old_text 在稿件里出现了 {count} 次；多带一些上下文让它唯一。")
        self.text = self.text.replace(old, new, 1)
        self.explicit = True
        self.version += 1
        return self.version

    def seal(self) -> int:
        if self.sealed:
            raise ConflictError("稿件已收笔。")
        if not self.text.strip():
            raise BadInput("稿件是空的，先用 draft_write 写正文再收笔。")
        self.sealed = True
        self.explicit = True
        return self.version

    def capture(self, text: str) -> None:
        """The text of one model round.  Before any explicit write it becomes (part of) the draft."""
        if not text:
            return
        self.streamed.append(text)
        if self.explicit or self.sealed:
            return
        # Rounds are separate paragraphs.
        piece = text.strip("\n")
        self.text = f"{self.text}\n\n{piece}" if self.text.strip() else piece


_FORMAT_BLOCK = re.compile(r"```[^\n]*\n.*?\n```|<([A-Za-z][\w-]*)[^>]*>.*?</\1>", re.DOTALL)


def format_blocks(text: str) -> list[str]:
    """Fenced and tagged blocks in *text*, in order, without repeats."""
    found: list[str] = []
    for match in _FORMAT_BLOCK.finditer(text):
        block = match.group(0).strip()
        if block not in found:
            found.append(block)
    return found


class BeatProse(msgspec.Struct, frozen=True):
    text: str
    sealed: bool
    warnings: tuple[str, ...] = ()


def finish_beat(sheet: DraftSheet) -> BeatProse:
    """The prose of a finished beat and whether it was sealed."""
    if not sheet.explicit:
        text = sheet.text.strip()
        return BeatProse(text, bool(text), () if text else (EMPTY_BEAT_WARNING,))
    draft = sheet.text.strip()
    tail = [b for b in format_blocks("".join(sheet.streamed)) if b not in draft]
    text = "\n\n".join([draft, *tail]) if draft else "\n\n".join(tail)
    warnings: list[str] = []
    if not text:
        warnings.append(EMPTY_BEAT_WARNING)
    elif not sheet.sealed:
        warnings.append(UNSEALED_WARNING)
    return BeatProse(text, sheet.sealed, tuple(warnings))
