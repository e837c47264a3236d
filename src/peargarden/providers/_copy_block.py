"""A llama.cpp logits processor that keeps a retry from copying the user's line.

The echo guard (:mod:`._echo`) catches a small model handing the user's words back, but sampling
again with another seed does not change what the model wants: on a long user turn Qwen2.5-0.5B
quoted the same two sentences back on every seed tried.  So the retry is steered away from the
copy itself, on the model's own tokens:

* **no run of the user's line is continued**: once the reply's last :attr:`CopyBlock.context`
  tokens are a run of the user's line (or of the line with 你/我 swapped), the token that follows
  that run in the user's line is banned — a name of a few tokens may be taken up, a sentence may
  not be written out;
* **no clause opens like one of the user's**: at the reply's start and after each clause's closing
  punctuation, the first token of each of the user's clauses is banned (the copy starts there).

Runs the story already holds — the system prompt (card, lore) and the turns before — are shared
words, not the user's: names and places like 镇北渡口 or 陆行舟 may be written out, up to
:data:`SHARED_RUN` tokens of the user's line in a row (Qwen's vocabulary writes most names one
character a token); past that the run is banned too.  Bans apply only while the model is writing the reply
(the processor learns where the reply starts on its first call: the prompt is already evaluated).
Pure over token ids; :func:`copy_block_for` tokenizes with the loaded model.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, Protocol

from ._echo import split_clauses, squash

__all__ = ["CopyBlock", "copy_block_for", "user_clauses"]

BANNED = float("-inf")
_SWAP = str.maketrans({"你": "我", "我": "你"})
_CLAUSE_CLOSE = "，。？！；：、,.?!;:…\n"
_CLOSING_QUOTES = " ”’」』）)\"'"
_EDGES = _CLAUSE_CLOSE + _CLOSING_QUOTES + "“‘「『（("
# The longest run of the user's line the reply may copy when the story already held it (a name).
SHARED_RUN = 4
# Clauses shorter than this (letters and digits) are not the opening of a copy ("好，" "在吗？").
MIN_OPENER_CHARS = 4


def user_clauses(text: str) -> list[str]:
    """The user's clauses, without their punctuation and quote marks, long enough to be copied."""
    clauses = (clause.strip(_EDGES) for clause in split_clauses(text))
    return [clause for clause in clauses if len(squash(clause)) >= MIN_OPENER_CHARS]


class CopyBlock:
    """The logits processor (``llama_cpp`` calls it with all token ids so far and the scores of the
    next token, indexed by token id, and uses the scores it returns)."""

    def __init__(
        self,
        lines: Iterable[Sequence[int]],
        *,
        context: int,
        openers: Collection[int] = (),
        token_text: Callable[[int], str] = lambda token: "",
        own: Iterable[Sequence[int]] = (),
        shared_run: int = SHARED_RUN,
    ) -> None:
        lines = [list(tokens) for tokens in lines]
        self.context = max(1, context)
        self.shared_run = max(self.context, shared_run)
        free = _follows(own, self.context)
        self._follow: dict[tuple[int, ...], set[int]] = {}
        for key, nexts in _follows(lines, self.context).items():
            banned = nexts - free.get(key, set())
            if banned:
                self._follow[key] = banned
        self._long = _follows(lines, self.shared_run)
        self._openers = frozenset(openers)
        self._token_text = token_text
        self._texts: dict[int, str] = {}
        self._start: int | None = None

    def banned(self, reply: Sequence[int]) -> set[int]:
        """The tokens that may not come next after the reply's tokens so far."""
        out: set[int] = set()
        if len(reply) >= self.context:
            out |= self._follow.get(tuple(reply[-self.context :]), set())
        if len(reply) >= self.shared_run:
            out |= self._long.get(tuple(reply[-self.shared_run :]), set())
        if self._opens_clause(reply):
            out |= self._openers
        return out

    def _opens_clause(self, reply: Sequence[int]) -> bool:
        """Whether the next token starts a clause: the reply's start, or after closing punctuation
        (and any closing quote marks after it, whichever tokens they came in)."""
        tail = ""
        for token in reversed(reply[-4:]):
            if token not in self._texts:
                self._texts[token] = self._token_text(token)
            tail = self._texts[token] + tail
            stripped = tail.rstrip(_CLOSING_QUOTES)
            if stripped:
                return stripped[-1] in _CLAUSE_CLOSE
        return not reply

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self._start is None:
            self._start = len(input_ids)
        # A list, not the runtime's numpy view: an error in here would be swallowed by the ctypes
        # callback that calls it (the ban silently gone).
        for token in self.banned([int(t) for t in input_ids[self._start :]]):
            if 0 <= token < len(scores):
                scores[token] = BANNED
        return scores


def _follows(lines: Iterable[Sequence[int]], context: int) -> dict[tuple[int, ...], set[int]]:
    """Every run of *context* tokens in *lines* → the tokens that follow it there."""
    out: dict[tuple[int, ...], set[int]] = {}
    for tokens in lines:
        for end in range(context, len(tokens)):
            out.setdefault(tuple(tokens[end - context : end]), set()).add(tokens[end])
    return out


class _Tokenizer(Protocol):
    def tokenize(self, text: bytes, add_bos: bool = ..., special: bool = ...) -> list[int]: ...

    def detokenize(self, tokens: list[int]) -> bytes: ...


def copy_block_for(llm: _Tokenizer, user_text: str, *, own_text: str = "", context: int = 2) -> CopyBlock:
    """The copy block for *user_text*, in *llm*'s tokens (*own_text*: the character's own words)."""

    def tokens(text: str) -> list[int]:
        return list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)) if text else []

    swapped = user_text.translate(_SWAP)
    openers: set[int] = set()
    for clause in user_clauses(user_text):
        for form in (clause, clause.translate(_SWAP)):
            first = tokens(form)[:1]
            openers.update(first)

    def token_text(token: int) -> str:
        return llm.detokenize([token]).decode("utf-8", errors="ignore")

    lines = [tokens(user_text)] + ([tokens(swapped)] if swapped != user_text else [])
    return CopyBlock(lines, context=context, openers=openers, token_text=token_text, own=[tokens(own_text)])
