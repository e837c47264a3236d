"""A budget for every part of a stage request: a part larger than the whole request may be is left out.

The stage counted its history against the context budget but sent everything else whole: a card
whose description is twelve million characters long went out as a 36 MB request.  SillyTavern (and
so tavern mode) drops a prompt that does not fit, with a warning; here each part the request is made
of — each prompt file, each card field, the persona, each lore entry, the story memory's blocks — is
held to the tokens the whole request may take (``[story] context_tokens`` − ``reserve_tokens``) and
left out, with one line naming it, when it is larger.  What fits is sent as before (the history is
then cut to what is left, as it always was).

Counting is skipped where length alone decides: a part with no more characters than the budget has
tokens fits (a token is at least one character), and one longer than :data:`MAX_TOKEN_CHARS` times the
budget cannot fit (no token of the tokenizers we count with is that long), so a huge part is never
tokenized.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MAX_TOKEN_CHARS", "PartBudget"]

MAX_TOKEN_CHARS = 128


class PartBudget:
    """The most tokens one part may take (*tokens*) and how they are counted; :meth:`keep` says what
    it left out in :attr:`warnings` (one assembly's)."""

    def __init__(self, tokens: int, count: Callable[[str], int]) -> None:
        self.tokens = max(0, tokens)
        self.count = count
        self.warnings: list[str] = []

    def fits(self, text: str) -> bool:
        if len(text) <= self.tokens:
            return True
        if len(text) > self.tokens * MAX_TOKEN_CHARS:
            return False
        return self.count(text) <= self.tokens

    def keep(self, label: str, text: str) -> str:
        """*text*, or ``""`` when it is larger than the budget (said once, naming *label*)."""
        if not text or self.fits(text):
            return text
        warning = (
            f"{label}太长（{len(text):,} 字），超出整个请求的上下文预算（{self.tokens:,} tokens），"
            "本拍没有发给模型"
        )
        if warning not in self.warnings:
            self.warnings.append(warning)
        return ""

    def keep_rendered(self, label: str, raw: str, render: Callable[[str], str]) -> str:
        """``render(raw)`` held to the budget; a *raw* far longer than the budget can hold is left out
        before *render* (macros over millions of characters) runs at all."""
        if len(raw) > self.tokens * MAX_TOKEN_CHARS:
            return self.keep(label, raw)
        return self.keep(label, render(raw))
