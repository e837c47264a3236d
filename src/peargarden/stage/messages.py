"""The message list of a stage beat (spec §2.5).

History carries final prose only (no tool traces, thinking or snapshots): user and assistant texts,
empty ones dropped, neighbours of the same role merged.  The last user message is the beat's
injection followed by the user's words — the words come *after* the data blocks, otherwise a model
reads the question as old history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

__all__ = ["SUMMARY_PREFIX", "Turn", "build_messages", "merge_turns"]

Role = Literal["user", "assistant"]

SUMMARY_PREFIX = "【前情提要】以下是更早剧情的接力摘要，是既定事实：\n\n"


class Turn(msgspec.Struct, frozen=True):
    role: Role
    text: str


def merge_turns(turns: Sequence[Turn]) -> list[Turn]:
    """Drop empty texts and merge neighbours of the same role (blank line between them)."""
    merged: list[Turn] = []
    for turn in turns:
        text = turn.text.strip()
        if not text:
            continue
        if merged and merged[-1].role == turn.role:
            merged[-1] = Turn(turn.role, merged[-1].text + "\n\n" + text)
        else:
            # The turn itself when stripping left it whole (most turns): no new object per turn.
            merged.append(turn if len(text) == len(turn.text) else Turn(turn.role, text))
    return merged


def build_messages(
    history: Sequence[Turn], user_text: str, injection: str, *, summary: str = ""
) -> list[dict[str, str]]:
    """OpenAI-shaped messages (without the system message) for one beat."""
    turns: list[Turn] = []
    if summary.strip():
        turns.append(Turn("user", SUMMARY_PREFIX + summary.strip()))
    turns.extend(history)
    merged = merge_turns(turns)
    words = user_text.strip()
    if merged and merged[-1].role == "user":
        # A pending user message (e.g. a /continue after an interrupted beat) joins the new words,
        # and the data blocks still come first.
        words = merged.pop().text + ("\n\n" + words if words else "")
    tail = "\n\n".join(part for part in (injection.strip(), words) if part)
    messages = [{"role": turn.role, "content": turn.text} for turn in merged]
    messages.append({"role": "user", "content": tail})
    return messages
