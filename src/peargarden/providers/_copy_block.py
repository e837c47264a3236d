"""A llama.cpp logits processor that keeps a small model from copying the user's line or the lore.

The echo guard (:mod:`._echo`) catches a small model handing the user's words back, but sampling
again with another seed does not change what the model wants: on a long user turn Qwen2.5-0.5B
quoted the same two sentences back on every seed tried.  So the retry is steered away from the
copy itself, while the model writes:

* **no run of the user's line is continued past a word**: a token that would make the reply end
  with a stretch of the user's line (or of the line with 你/我 swapped) longer than
  :attr:`CopyBlock.limit` characters is banned — a word of the user's (柳树下, 陆行舟) may be taken
  up, a sentence may not be written out;
* **no clause opens like one of the user's**: at the reply's start and after each clause's closing
  punctuation, a token that begins one of the user's clauses is banned (the copy starts there).

Stretches the story already holds — the system prompt (card, lore) and the turns before — are
shared words, not only the user's: names and places like 镇北渡口 or 听雨轩的掌柜 may be written
out, up to :attr:`CopyBlock.shared_limit` characters in a row.

**No run of the story's texts is continued past a phrase, nor the reply made mostly of them**
(``sources``: the system prompt — card, lore, example dialogue — and the character's own messages,
the greeting first): a token that would make the reply end with more than
:attr:`CopyBlock.source_limit` units in a row of one of them is banned, and so is one that would put
more of the reply in runs of them than :mod:`._paste_meter` allows (the model went round the first
bound by changing a character and pasting on).  Asked about the old umbrella, Qwen2.5-0.5B pasted 71
characters of the lore entry; another seed gave the same entry again, so these bounds apply on every
try, not only to a retry.

Runs are measured as the echo guard measures clauses: a Chinese character (any wide character) or a
punctuation mark counts one, and so does a word of a script written with spaces, whose spaces count
nothing (:func:`run_length`) — five characters of Chinese are a short phrase, five letters of
English not even the name "Seraphina", which the story holds and the retry must be able to write.

The reply is compared as text, not as token ids: the model may spell the same characters with
other tokens than the user's line was cut into ("过的" + "客人" or "过" + "的客人"), so the tokens
banned are every single token that spells the beginning of what would continue the copy.  Bans
apply only while the model writes the reply (the processor learns where the reply starts on its
first call: the prompt is evaluated by then).  Pure over the two tokenizer functions it is given;
:func:`copy_block_for` takes them from the loaded model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ._echo import MIN_CONTAINED, split_clauses, squash, wide
from ._paste_meter import PASTE_RUN, PasteMeter

__all__ = ["LIMIT", "SHARED_LIMIT", "SOURCE_LIMIT", "CopyBlock", "copy_block_for", "run_length", "user_clauses"]

BANNED = float("-inf")
_SWAP = str.maketrans({"你": "我", "我": "你"})
_CLAUSE_CLOSE = "，。？！；：、,.?!;:…\n"
_CLOSING_QUOTES = " ”’」』）)\"'"
_EDGES = _CLAUSE_CLOSE + _CLOSING_QUOTES + "“‘「『（("
# The retry's bounds, in run_length units: a run of the user's own words (one short of what the echo
# guard calls an echo) / of words the story holds.
LIMIT = MIN_CONTAINED - 1
SHARED_LIMIT = 8
# A run of the story's texts (card, lore, the character's messages): a name or a phrase of them
# (县城沈家的小儿子, 伞面上手绘的几枝桃花), not a sentence.  The quality bench counts 20 as a copy.
SOURCE_LIMIT = 10
# Between the sources in the one text searched: in none of them, so no run spans two.
_SEPARATOR = "\x00"
# The longest token looked for at a point of the user's line (Qwen's longest Chinese tokens are
# four or five characters); a word of a spaced script is looked for whole, up to _WORD_CHARS.
_TOKEN_CHARS = 6
_WORD_CHARS = 16
# Clauses shorter than this (letters and digits) are not the opening of a copy ("好，" "在吗？").
MIN_OPENER_CHARS = 4


def run_length(text: str) -> int:
    """*text*'s length in the units runs are bounded in: each wide character and each punctuation
    mark one, each word (run of other letters and digits, whole or cut) one, spaces none."""
    count = 0
    in_word = False
    for char in text:
        narrow_letter = char.isalnum() and not wide(char)
        # a word counts at its first letter; anything else but a space counts itself
        starts = not in_word if narrow_letter else not char.isspace()
        count += starts
        in_word = narrow_letter
    return count


def _head(text: str) -> str:
    """The start of *text* whose beginnings may be single tokens: a few characters, or a whole
    word of a spaced script ("guardian" is one token of Qwen's, " guardian" too)."""
    end = _TOKEN_CHARS
    while end < min(len(text), _WORD_CHARS) and text[end - 1].isalnum() and not wide(text[end - 1]):
        if not (text[end].isalnum() and not wide(text[end])):
            break
        end += 1
    return text[:end]


def user_clauses(text: str) -> list[str]:
    """The user's clauses, without their punctuation and quote marks, long enough to be copied."""
    clauses = (clause.strip(_EDGES) for clause in split_clauses(text))
    return [clause for clause in clauses if len(squash(clause)) >= MIN_OPENER_CHARS]


class CopyBlock:
    """The logits processor (``llama_cpp`` calls it with all token ids so far and the scores of the
    next token, indexed by token id, and uses the scores it returns).

    *token_text* spells a token; *single_token* is the one token that spells a text, or ``None``.
    """

    def __init__(
        self,
        user_text: str,
        *,
        token_text: Callable[[int], str],
        single_token: Callable[[str], int | None],
        own_text: str = "",
        limit: int = LIMIT,
        shared_limit: int = SHARED_LIMIT,
        sources: Sequence[str] = (),
        source_limit: int = SOURCE_LIMIT,
    ) -> None:
        self.limit = max(1, limit)
        self.shared_limit = max(self.limit, shared_limit)
        self.source_limit = max(1, source_limit)
        swapped = user_text.translate(_SWAP)
        self._lines = [line for line in dict.fromkeys((user_text, swapped)) if line]
        # One text to search: a run never spans two sources (the separator is in none of them).
        self._sources = _SEPARATOR.join(text for text in sources if text)
        self._meter = PasteMeter(self._sources, run_length)
        self._own = own_text
        self._token_text = token_text
        self._single_token = single_token
        self._texts: dict[int, str] = {}
        self._spelled: dict[str, list[int]] = {}
        self._openers: set[int] = set()
        for clause in user_clauses(user_text):
            for form in (clause, clause.translate(_SWAP)):
                self._openers.update(self._spelling(form))
        self._start: int | None = None

    def _text(self, token: int) -> str:
        if token not in self._texts:
            self._texts[token] = self._token_text(token)
        return self._texts[token]

    def _spelling(self, text: str) -> list[int]:
        """The single tokens that spell a beginning of *text* ("船", "船家" for "船家说…"; with a
        space before it too, " 船": the model's way round a ban on "船")."""
        head = _head(text)
        if head not in self._spelled:
            found = (self._single_token(pad + head[:size]) for size in range(1, len(head) + 1) for pad in ("", " "))
            self._spelled[head] = [token for token in found if token is not None]
        return self._spelled[head]

    def banned(self, reply: Sequence[int]) -> set[int]:
        """The tokens that may not come next after the reply's tokens so far."""
        text = "".join(self._text(token) for token in reply)
        out: set[int] = set()
        for line in self._lines:
            out |= self._continuing(text, line, self.limit, self._user_run_too_long)
        if self._sources:
            bound = min(PASTE_RUN - 1, self.source_limit)
            out |= self._continuing(text, self._sources, bound, self._source_too_much)
        if self._opens_clause(text, bool(reply)):
            out |= self._openers
        return out

    def _user_run_too_long(self, text: str, size: int, piece: str) -> bool:
        copied = text[len(text) - size :] + piece
        length = run_length(copied)
        return length > self.shared_limit or (length > self.limit and copied not in self._own)

    def _source_too_much(self, text: str, size: int, piece: str) -> bool:
        if run_length(text[len(text) - size :] + piece) > self.source_limit:
            return True
        return self._meter.too_much(text, size, piece)

    def _continuing(self, text: str, line: str, bound: int, too_much: Callable[[str, int, str], bool]) -> set[int]:
        """The tokens that would continue a stretch of *line* the reply ends with in a way *too_much*
        says no to (never while the stretch and what follows it in *line* are within *bound* units)."""
        out: set[int] = set()
        # Every stretch the reply ends with that is in the line, and what follows it there.
        size = 1
        while size <= len(text) and text[-size:] in line:
            run = text[-size:]
            at = line.find(run)
            while at >= 0:
                rest = line[at + size :].split(_SEPARATOR, 1)[0]
                if run_length(run + _head(rest)) > bound:
                    for token in self._spelling(rest):
                        # A token's own leading space counts when the line has it there (" forest"
                        # after "of this"); otherwise it is the model's way round a ban (" 船").
                        piece = self._text(token)
                        if not line.startswith(piece, at + size):
                            piece = piece.lstrip(" ")
                        if too_much(text, size, piece):
                            out.add(token)
                at = line.find(run, at + 1)
            size += 1
        return out

    @staticmethod
    def _opens_clause(text: str, started: bool) -> bool:
        """Whether the next token starts a clause: the reply's start, or after closing punctuation
        (and any closing quote marks after it)."""
        stripped = text.rstrip(_CLOSING_QUOTES)
        return stripped[-1] in _CLAUSE_CLOSE if stripped else not started

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        if self._start is None:
            self._start = len(input_ids)
        # A list, not the runtime's numpy view: an error in here would be swallowed by the ctypes
        # callback that calls it (the ban silently gone).
        for token in self.banned([int(t) for t in input_ids[self._start :]]):
            if 0 <= token < len(scores):
                scores[token] = BANNED
        return scores


class _Tokenizer(Protocol):
    def tokenize(self, text: bytes, add_bos: bool = ..., special: bool = ...) -> list[int]: ...

    def detokenize(self, tokens: list[int]) -> bytes: ...


def copy_block_for(
    llm: _Tokenizer,
    user_text: str,
    *,
    own_text: str = "",
    limit: int = LIMIT,
    shared_limit: int = SHARED_LIMIT,
    sources: Sequence[str] = (),
    source_limit: int = SOURCE_LIMIT,
) -> CopyBlock:
    """The copy block for *user_text* ("" for none: *sources* only) with *llm*'s vocabulary
    (*own_text*: the story's words so far; *sources*: the texts no long run may be copied from)."""

    def token_text(token: int) -> str:
        return llm.detokenize([token]).decode("utf-8", errors="ignore")

    def single_token(text: str) -> int | None:
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        return tokens[0] if len(tokens) == 1 and token_text(tokens[0]) == text else None

    return CopyBlock(
        user_text,
        token_text=token_text,
        single_token=single_token,
        own_text=own_text,
        limit=limit,
        shared_limit=shared_limit,
        sources=sources,
        source_limit=source_limit,
    )
