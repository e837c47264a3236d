"""The opening guard: a small model's first sentence, held until it is judged.

Two failures of Qwen2.5-0.5B a person would not keep open a reply (issue 28):

* **stepping out to say what it is** — asked who it is (even in character, 「你是什么模型？」 out of
  character), it answers with its training's self-introduction, 「我是阿里云开发的超大规模语言模型」
  (:func:`claims_to_be_a_model`);
* **pasting the prompt** — asked about a thing the lore describes, it writes the lore entry out,
  「这把旧油纸伞是听雨轩柜台后的墙上挂着一把，竹骨断了一根，伞面上手绘的几枝桃花已褪成浅褐色。」: a run of
  :data:`COPY_LIMIT` characters or more of the system prompt (the card, the lore bodies).

:class:`OpeningGuard` holds a streamed reply's first sentence; when it does either, the try is dropped
unseen (``feed``/``finish`` return ``None``) and :attr:`OpeningGuard.failure` says which, so the
provider samples again — the retry's copy block (:mod:`._copy_block`) then also bounds runs of the
prompt's text.  On the last try a claiming sentence is cut, unless nothing else follows it; a copy is
shown (the copy block already held the retry back).  Pure: text in, text out.
"""

from __future__ import annotations

import re

__all__ = ["COPY_LIMIT", "OpeningGuard", "claims_to_be_a_model", "longest_shared_run"]

CLAIM = re.compile(
    r"(我是|我叫|本)[^。！？\n]{0,24}(模型|AI|人工智能|助手|程序)"
    r"|阿里|通义|千问|Qwen|OpenAI|Alibaba"
    r"|I(?:'m| am) (?:an? )?(?:AI|artificial|language model|assistant)",
    re.IGNORECASE,
)
# A run this long (spaces ignored) shared with the system prompt is a paste, not a name or a place.
COPY_LIMIT = 20
_SENTENCE_END = "。！？!?\n"
# Held at most this many characters when no sentence ends (a long first sentence is judged on them).
_HOLD = 48


def claims_to_be_a_model(text: str) -> bool:
    """Whether *text* says it is a model, an AI, an assistant or a program, or names a model's maker."""
    return bool(CLAIM.search(text))


def longest_shared_run(text: str, source: str) -> int:
    """The longest run of *text* (spaces ignored) that *source* (spaces ignored) holds too."""
    text, source = "".join(text.split()), "".join(source.split())
    best = 0
    for start in range(len(text)):
        while start + best < len(text) and text[start : start + best + 1] in source:
            best += 1
    return best


class OpeningGuard:
    """Text in as it streams; out once the first sentence is judged (see the module's docstring)."""

    def __init__(self, *, can_retry: bool, prompt: str = "") -> None:
        self.can_retry = can_retry
        self.prompt = prompt  # the system prompt's text: what a paste would come from
        self.failure = ""  # "claim" or "copy" once a try was dropped
        self._held = ""
        self._judged = False
        self._cut = ""  # the claiming sentence the last try cut, shown if nothing else comes
        self._shown = False

    def feed(self, text: str) -> str | None:
        """What can be shown now ("" = hold on), or ``None``: drop this try and sample again."""
        if self._judged:
            return self._show(text)
        self._held += text
        end = next((i + 1 for i, ch in enumerate(self._held) if ch in _SENTENCE_END), 0)
        if not end and len(self._held) < _HOLD:
            return ""
        return self._judge(end or len(self._held))

    def finish(self) -> str | None:
        """The rest once the reply is complete, or ``None`` (drop this try and sample again)."""
        out = self._judge(len(self._held)) if not self._judged else ""
        if out is None:
            return None
        return out + self._cut if self._cut and not self._shown else out  # never an empty reply

    def _judge(self, end: int) -> str | None:
        first, rest = self._held[:end], self._held[end:]
        self._judged, self._held = True, ""
        claims = claims_to_be_a_model(first)
        copies = bool(self.prompt) and longest_shared_run(first, self.prompt) >= COPY_LIMIT
        if not (claims or copies):
            return self._show(first + rest)
        if self.can_retry:
            self.failure = "claim" if claims else "copy"
            return None
        if not claims:
            return self._show(first + rest)
        self._cut = first
        return self._show(rest.lstrip())

    def _show(self, text: str) -> str:
        self._shown = self._shown or bool(text.strip())
        return text
