"""Forks handed to the user: the ``ask`` tool's rules (spec §9.7).

The model asks one question with 2–4 options; the user may also answer in their own words.  The
beat ends there and a choice card is shown; the answer comes back as the next user turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from peargarden.errors import BadInput

__all__ = ["MAX_OPTIONS", "MIN_OPTIONS", "AskCard", "answer_text", "parse_ask"]

MIN_OPTIONS = 2
MAX_OPTIONS = 4
HANDED_OVER = "已把这个岔口交给用户，本拍到此为止。用户的选择会作为下一条消息到来，到时接着写。"


class AskCard(msgspec.Struct, frozen=True):
    question: str
    options: tuple[str, ...]
    free_text: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "choice",
            "question": self.question,
            "options": list(self.options),
            "free_text": self.free_text,
        }


def parse_ask(args: Mapping[str, Any]) -> AskCard:
    """Check the model's arguments: a question and 2–4 distinct, non-empty options."""
    question = str(args.get("question") or "").strip()
    if not question:
        raise BadInput("ask 需要一个问题（question）。")
    raw = args.get("options")
    options: list[str] = []
    if isinstance(raw, list):
        for item in raw:
            text = str(item).strip() if isinstance(item, str | int | float) else ""
            if text and text not in options:
                options.append(text)
    if not MIN_OPTIONS <= len(options) <= MAX_OPTIONS:
        raise BadInput(f"ask 需要 {MIN_OPTIONS}–{MAX_OPTIONS} 个不同的选项，现在是 {len(options)} 个。")
    return AskCard(question, tuple(options))


def answer_text(answer: str) -> str:
    """How the user's answer reads in the story stream."""
    return f"用户已作答：「{answer.strip()}」。"
