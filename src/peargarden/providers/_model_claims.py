"""A small model stepping out of its character to say what it is: 「我是阿里云开发的超大规模语言模型」.

Also its assistant's voice in the character's mouth: "I'm sorry, but I can't assist with that."

Asked who it is (even in character, 「你是什么模型？」 out of character), Qwen2.5-0.5B answers with its
training's self-introduction.  :func:`claims_to_be_a_model` spots one in a sentence; :class:`ClaimGuard`
holds a streamed reply's first sentence until it is judged, so a reply that opens with one is dropped
unseen and generated again (``feed``/``finish`` return ``None``), as the echo guard does for echoes.
On the last try the claiming sentence is cut, unless nothing else follows it.  Pure: text in, text out.
"""

from __future__ import annotations

import re

__all__ = ["ClaimGuard", "claims_to_be_a_model"]

CLAIM = re.compile(
    r"(我是|我只是|我叫|本|作为)[^。！？\n]{0,24}(模型|AI|人工智能|助手|程序)"
    r"|阿里|通义|千问|Qwen|OpenAI|Alibaba"
    # "I'm a text-based AI designed to assist…" (Qwen2.5-0.5B asked in Chinese to answer in English)
    r"|\bI(?:'m| am)\b[^.!?\n]{0,30}?\b(?:AI|artificial intelligence|language model|chatbot|assistant)\b"
    r"|\bas an? (?:AI|artificial intelligence|language model|assistant)\b"
    # the assistant's refusal in a character's mouth: "I'm sorry, but I can't assist with that."
    r"|\bcan(?:'t|not) assist with",
    re.IGNORECASE,
)
_SENTENCE_END = "。！？!?\n"
# Held at most this many characters when no sentence ends (a long first sentence is judged on them).
_HOLD = 48


def claims_to_be_a_model(text: str) -> bool:
    """Whether *text* says it is a model, an AI, an assistant or a program, or names a model's maker."""
    return bool(CLAIM.search(text))


class ClaimGuard:
    """Text in as it streams; out once the first sentence is judged (see the module's docstring)."""

    def __init__(self, *, can_retry: bool) -> None:
        self.can_retry = can_retry
        self._held = ""
        self._judged = False
        self._cut = ""  # the claiming sentence the last try cut, shown if nothing else comes
        self._shown = False

    def feed(self, text: str) -> str | None:
        """What can be shown now ("" = hold on), or ``None``: the opening claims, generate again."""
        if self._judged:
            return self._show(text)
        self._held += text
        end = next((i + 1 for i, ch in enumerate(self._held) if ch in _SENTENCE_END), 0)
        if not end and len(self._held) < _HOLD:
            return ""
        return self._judge(end or len(self._held))

    def finish(self) -> str | None:
        """The rest once the reply is complete, or ``None`` (it claims, and a retry may follow)."""
        out = self._judge(len(self._held)) if not self._judged else ""
        if out is None:
            return None
        return out + self._cut if self._cut and not self._shown else out  # never an empty reply

    def _judge(self, end: int) -> str | None:
        first, rest = self._held[:end], self._held[end:]
        self._judged, self._held = True, ""
        if not claims_to_be_a_model(first):
            return self._show(first + rest)
        if self.can_retry:
            return None
        self._cut = first
        return self._show(rest.lstrip())

    def _show(self, text: str) -> str:
        self._shown = self._shown or bool(text.strip())
        return text
