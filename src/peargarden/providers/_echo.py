"""Echoes of the user's line in a small model's reply, clause by clause.

Small models (Qwen2.5-0.5B measured) often answer with the user's own words: the whole line again
("这雨什么时候能停？"), its last clause ("想洗把脸。"), the line with 你 and 我 swapped ("我一个人撑着
这间客栈，不累吗？"), or long stretches of a long turn quoted back in the middle of a reply.

A reply is cut into clauses at Chinese and ASCII punctuation, and clauses are compared in *units*
(:func:`units`): each Chinese character (any wide letter or digit: kana, hangul, full-width forms
too) is a unit, and so is each word of a script written with spaces (English: "guardian",
"forest"); punctuation, spaces and quote marks are ignored.  Counting a Latin word as one unit keeps
the bounds below meaning the same in both: ten units are a clause of Chinese or a sentence of
English, where ten letters would be two English words, and a Seraphina reply that says "the
guardian of this forest" again, or "with my magic", would lose the clause.  A clause echoes the
user's line when:

* it is at least :data:`MIN_CONTAINED` units long, wholly contained in the user's line (or
  in the line with 你/我 swapped: the model speaks from the other side), and at least two thirds
  of the user's clauses it lies in (a clause said again; "那位怀瑾公子" picked out of
  "十年前从镇北渡口走的那位怀瑾公子" takes up the topic), or
* it shares a run of :data:`MIN_SHARED` or more units with the user's line (a quote of a long
  turn inside an otherwise new clause), or
* it is the user's whole line, however short (but at least 4 units: "在吗" is not an echo), or one
  of the user's clauses again, of :data:`MIN_CLAUSE` units or more ("Where... where am I?" to
  "*I wake up slowly…* Where am I?": issue 49, a run of three words the bounds above let through).

Clauses are compared person-neutral (:func:`echo_units`): 你 / 我 / 您 and I / me / my / you / your …
are one unit, and so are am / are, so the line said back from the other side ("You wake slowly" to
"I wake up slowly", 「我一个人撑着这间客栈」 to 「你一个人撑着…」) is the user's line too.

A whole reply made only of the user's words ("想洗把脸。" to "掌柜，有热水吗？我想洗把脸。") echoes
too, though each of its clauses is short.

Names and places are shorter than these bounds (镇北渡口, 旧油纸伞): a reply may take up the user's
topic; it may not hand the sentence back.  Pure functions; the provider does the streaming.
"""

from __future__ import annotations

import unicodedata
import zlib
from collections.abc import Callable, Sequence

__all__ = [
    "MIN_CLAUSE",
    "MIN_CONTAINED",
    "MIN_OPENING",
    "MIN_SHARED",
    "EchoFilter",
    "clause_end",
    "echo_clause",
    "echo_runs",
    "echo_units",
    "echoes",
    "ends_soft",
    "full_stop",
    "longest_shared",
    "open_marks",
    "split_clauses",
    "strip_echo",
    "units",
    "wide",
]

MIN_CONTAINED = 6
MIN_SHARED = 10
MIN_CLAUSE = 3
# The guard holds a reply back until its opening has this many units: an echo right
# after a short first clause ("晚上，" then "我先上楼歇息。") is still an echo that opened the reply.
MIN_OPENING = 8
_CLAUSE_END = frozenset("，。？！；：、,.?!;:…\n")


def squash(text: str) -> str:
    """Letters and digits only (CJK included)."""
    return "".join(ch for ch in text if ch.isalnum())


# Each word of a spaced script stands for one character of this plane (Supplementary Private Use
# Area-A), picked by a checksum of the case-folded word: the comparisons below stay substring
# tests on strings.  Two different words share a character once in 65,534 pairs; the bounds ask
# for runs of several units, so a false match needs several such accidents in a row.
_WORD_PLANE = 0xF0000
_WORD_CODES = 0xFFFE


def _word_unit(word: str) -> str:
    return chr(_WORD_PLANE + zlib.crc32(word.casefold().encode("utf-8")) % _WORD_CODES)


# The person-neutral units of echo_units: the first and second person (and "to be" after them) are
# one unit each, whichever side speaks.
_PERSON = chr(_WORD_PLANE + _WORD_CODES)
_BE = chr(_WORD_PLANE + _WORD_CODES + 1)
_PERSONS = frozenset({"i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "ya"})
_BE_FORMS = frozenset({"am", "are", "m", "re"})  # ("I'm" and "you're" split at the apostrophe)
_WIDE_PERSONS = frozenset("你我您")


def units(text: str, *, persons: bool = False) -> str:
    """*text* as the units its clauses are compared in: each wide letter or digit (Chinese, kana,
    hangul, full-width forms) as itself, each run of other letters and digits (a word of English,
    a number) as one character standing for the word; everything else left out.  *persons*: the
    first and second person made one unit (see :func:`echo_units`)."""
    out: list[str] = []
    word: list[str] = []

    def end_word() -> None:
        spelled = "".join(word).casefold()
        if persons and spelled in _PERSONS:
            out.append(_PERSON)
        elif persons and spelled in _BE_FORMS:
            out.append(_BE)
        else:
            out.append(_word_unit(spelled))
        word.clear()

    for char in text:
        if char.isalnum() and not wide(char):
            word.append(char)
            continue
        if word:
            end_word()
        if char.isalnum():
            out.append(_PERSON if persons and char in _WIDE_PERSONS else char)
    if word:
        end_word()
    return "".join(out)


def echo_units(text: str) -> str:
    """:func:`units` with 你 / 我 / 您, I / me / my / you / your … one unit and am / are another: the
    echo guard's units, so that a line said back from the other side is the same line."""
    return units(text, persons=True)


_WIDE = frozenset("WF")


def wide(char: str) -> bool:
    """Whether *char* is a wide character (Chinese, kana, hangul, full-width forms): one unit alone."""
    return unicodedata.east_asian_width(char) in _WIDE


def clause_end(text: str) -> int:
    """The end of the first whole clause of *text* (after its run of closing punctuation and quote
    marks), or -1 when no clause is complete yet.  A clause is only complete once a character that
    is not punctuation follows, so "？”" and "……" stay together."""
    for index, char in enumerate(text):
        if char in _CLAUSE_END:
            end = index + 1
            while end < len(text) and (text[end] in _CLAUSE_END or text[end] in "”’」』）)\"' "):
                end += 1
            return end if end < len(text) else -1
    return -1


def split_clauses(text: str) -> list[str]:
    """*text* cut after each clause's closing punctuation; joined again they give *text*."""
    return split_at(text, clause_end)


def split_at(text: str, end_of: Callable[[str], int]) -> list[str]:
    """*text* cut where *end_of* says its first piece ends (-1: no whole piece left), again and again;
    joined again the pieces give *text*."""
    out: list[str] = []
    while (end := end_of(text)) >= 0:
        out.append(text[:end])
        text = text[end:]
    if text:
        out.append(text)
    return out


def longest_shared(a: str, b: str) -> int:
    """Length of the longest common substring of *a* and *b* (short texts: dynamic programming)."""
    best = 0
    previous = [0] * (len(b) + 1)
    for char in a:
        current = [0] * (len(b) + 1)
        for j, other in enumerate(b, 1):
            if char == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def _within(user: str, piece: str) -> bool:
    return piece in user


def _restates(user_text: str, piece: str) -> bool:
    """*piece* (in echo units) is a stretch of the user's line that makes up most of the user's
    clauses it lies in: the clause said again, not a name or a noun phrase picked out of it
    ("那位怀瑾公子" out of "十年前从镇北渡口走的那位怀瑾公子" takes up the topic)."""
    bounds: list[tuple[int, int]] = []  # each clause's span in the line's units
    start = 0
    for clause in split_clauses(user_text):
        size = len(echo_units(clause))
        if size:
            bounds.append((start, start + size))
        start += size
    flat = echo_units(user_text)
    at = flat.find(piece)
    while at >= 0:
        end = at + len(piece)
        spanned = sum(b - a for a, b in bounds if a < end and b > at)
        if spanned and len(piece) * 3 >= spanned * 2:
            return True
        at = flat.find(piece, at + 1)
    return False


def echo_clause(user_text: str, clause: str, *, short_clauses: bool = True) -> bool:
    """Whether *clause* (one clause of a reply) hands the user's line back (see the module doc).
    *short_clauses*: one of the line's clauses again counts from :data:`MIN_CLAUSE` units (the line
    the user just wrote; an earlier line is left to the bounds of a longer quote, and a sentence the
    model said before to the sentence guard, which keeps the quote marks it cuts)."""
    user = echo_units(user_text)
    piece = echo_units(clause)
    if len(user) < 4 or not piece:
        return False
    if piece == user:
        return True
    if short_clauses and len(piece) >= MIN_CLAUSE and piece in {echo_units(c) for c in split_clauses(user_text)}:
        return True
    if len(piece) >= MIN_CONTAINED and _restates(user_text, piece):
        return True
    return len(piece) >= MIN_SHARED and longest_shared(piece, user) >= MIN_SHARED


def _only_user_words(user_text: str, text: str) -> bool:
    """*text* is at least 4 units, all of them a stretch of the user's line."""
    piece = echo_units(text)
    return len(piece) >= 4 and _within(echo_units(user_text), piece)


def _short_quote(user_text: str, clause: str) -> bool:
    """A clause that is only punctuation or a (short) stretch of the user's line: alone it is no
    echo, but several in a row may be ("你好，" "掌柜。" "还有空房吗？")."""
    piece = echo_units(clause)
    return not piece or _within(echo_units(user_text), piece)


def echo_runs(user_text: str, reply: str) -> list[tuple[str, bool]]:
    """*reply* as runs of clauses, each with whether it echoes.  Consecutive short quotes of the
    user's line are judged together, and go with an echoing clause next to them ("夜深了，" before
    "我先上楼歇息。", "不累吗？" after "我一个人撑着这间客栈，"); every other clause is judged alone."""
    runs: list[tuple[str, bool]] = []
    quote: list[str] = []
    for clause in split_clauses(reply):
        if _short_quote(user_text, clause) and not echo_clause(user_text, clause):
            quote.append(clause)
            continue
        echo = echo_clause(user_text, clause)
        if quote:
            text = "".join(quote)
            runs.append((text, echo or echo_clause(user_text, text) or bool(runs and runs[-1][1])))
            quote.clear()
        runs.append((clause, echo))
    if quote:
        text = "".join(quote)
        runs.append((text, echo_clause(user_text, text) or bool(runs and runs[-1][1])))
    return runs


def echoes(user_text: str, reply: str) -> bool:
    """Whether *reply* echoes *user_text*: a clause (or a run of short ones) hands the user's line
    back, or all of it is the user's words."""
    return _only_user_words(user_text, reply) or any(echo for _, echo in echo_runs(user_text, reply))


def strip_echo(user_text: str, reply: str) -> str:
    """*reply* without its echoing clauses (what is left may be empty: the caller decides)."""
    kept = "".join(text for text, echo in echo_runs(user_text, reply) if not echo)
    return kept.lstrip(_LEADING)


_LEADING = "，。？！；：、,.?!;:…\n ”’」』）)"


# A clause ending in one of these goes on; cut after it, the reply ends in the matching full stop.
_SOFT_ENDS = {"，": "。", "、": "。", "；": "。", "：": "。", ",": ".", ";": ".", ":": "."}
_CLOSERS = "”’」』）)\"' \n"


def ends_soft(clause: str) -> bool:
    """Whether *clause* ends in a comma-like mark (closing quote marks and spaces after it aside)."""
    body = clause.rstrip(_CLOSERS)
    return bool(body) and body[-1] in _SOFT_ENDS


_PAIRS = {"“": "”", "「": "」", "『": "』", "（": "）", "(": ")", '"': '"', "*": "*"}
_CLOSING = {close: open_ for open_, close in _PAIRS.items()}


def open_marks(text: str) -> str:
    """The closing marks *text* still owes, innermost first: quotes, brackets and the asterisks of
    role-play actions opened and not closed ('*她笑了。“好' owes '”*')."""
    stack: list[str] = []
    for char in text:
        if stack and _PAIRS[stack[-1]] == char:
            stack.pop()
        elif char in _PAIRS:
            stack.append(char)
        elif char in _CLOSING and _CLOSING[char] in stack:
            while stack and stack.pop() != _CLOSING[char]:
                pass  # a mark closed out of order closes what was opened inside it
    return "".join(_PAIRS[mark] for mark in reversed(stack))


def full_stop(text: str) -> str:
    """*text* with a comma-like mark at its end made a full stop (its closing quote marks kept,
    trailing spaces dropped); any other *text* unchanged."""
    body = text.rstrip(_CLOSERS)
    if not body or body[-1] not in _SOFT_ENDS:
        return text
    return body[:-1] + _SOFT_ENDS[body[-1]] + text[len(body) :].rstrip()


class EchoFilter:
    """The echo guard over a streamed reply: text goes in as it arrives, whole clauses come out.

    A clause that echoes the user's line is never shown (nor a run of short clauses that together
    do: they are held until the run ends).  Nothing is shown before the reply's opening has
    :data:`MIN_OPENING` units.  While another try may follow (``can_retry``), an echo
    before anything was shown stops the reply (``feed``/``finish`` return ``None``: generate
    again); on the last try echoing clauses are dropped.  If the last try is nothing but the user's
    words, it is shown as it came rather than an empty reply.

    A shown clause that ends in a comma-like mark ("镇上有很多好吃的，") waits until the clause after
    it is judged, and spaces at the end of what was shown wait for more text: when every clause
    after them is cut, the reply ends there, its comma becomes a full stop ("镇上有很多好吃的。") and
    the quotes and action asterisks it left open are closed ('"I'm Seraphina.' → '"I'm
    Seraphina."'), instead of the reply hanging mid-sentence.
    """

    def __init__(self, user_text: str, *, can_retry: bool, earlier: Sequence[str] = ()) -> None:
        self.user_text = user_text
        self.can_retry = can_retry
        # Earlier lines judged like the user's: the user's before (a clause handing one back is the
        # model writing the user's part, "我叫陆行舟，从县城来。" two turns later) or the model's own
        # last replies (a reply said again is a loop across beats).
        self.earlier = [line for line in earlier if line.strip()]
        self._pending = ""
        self._quote: list[str] = []
        self._dropped: list[str] = []
        self._after_echo = False
        self._opening = ""  # shown text held until the opening is long enough
        self._soft = ""  # a shown clause ending in a comma, held until the next clause is judged
        self._cut_last = False  # the last clause (in the reply's order) was cut
        self._sent: list[str] = []  # what feed and finish returned
        self.shown = False

    @property
    def dropped(self) -> str:
        """The echoed text that was not shown."""
        return "".join(self._dropped)

    def feed(self, text: str) -> str | None:
        """What can be shown now ("" = hold on), or ``None``: an echo opened a try that may be retried."""
        self._pending += text
        out: list[str] = []
        while (end := clause_end(self._pending)) >= 0:
            clause, self._pending = self._pending[:end], self._pending[end:]
            shown = self._clause(clause)
            if shown is None:
                return None
            out.append(self._hold_soft(shown))
        self._sent.extend(out)
        return "".join(out)

    def finish(self) -> str | None:
        """The rest of the reply once it is complete, or ``None`` (an echo where a retry may follow)."""
        rest = self._rest()
        if rest is None:
            return None
        text, self._soft = self._soft + rest, ""
        if self._cut_last:  # the reply's end was cut: end it as a sentence
            text = full_stop(text).rstrip()
            text += open_marks("".join(self._sent) + text)
        return text

    def _hold_soft(self, text: str) -> str:
        """*text* to go out now, but for a last clause that ends in a comma-like mark (held)."""
        if not text:
            return ""
        text, self._soft = self._soft + text, ""
        last = split_clauses(text)[-1]
        if not ends_soft(last):
            last = text[len(text.rstrip()) :]  # only the spaces at the end wait
        self._soft = last
        return text[: len(text) - len(last)]

    def _rest(self) -> str | None:
        rest = self._clause(self._pending) if self._pending else ""
        self._pending = ""
        if rest is None:
            return None
        quote = "".join(self._quote)
        if not self.shown and not self._opening and quote and _only_user_words(self.user_text, quote):
            # The whole reply is the user's words, a few characters at a time ("想洗把脸。").
            self._quote = []
            if self.can_retry:
                return None
            self._dropped.append(quote)
            self._cut_last = True
        closed = self._close_quote()
        if closed is None:
            return None
        rest += closed
        if self._opening:  # a short reply: all of it was held
            held, self._opening, self.shown = self._opening, "", True
            return held + rest
        if not self.shown and self._dropped:
            self.shown, self._cut_last = True, False
            return self.dropped  # the last try is all echo: better than nothing at all
        return rest

    def _clause(self, clause: str) -> str | None:
        echo = self._echo(clause)
        if not echo and any(_short_quote(line, clause) for line in (self.user_text, *self.earlier)):
            self._quote.append(clause)
            return ""
        before = self._close_quote(next_echo=echo)
        if before is None or (echo and self.can_retry and not self.shown):
            return None
        self._after_echo = echo
        if echo:
            self._dropped.append(clause)
            self._cut_last = True
            return before
        return before + self._show(clause)

    def _close_quote(self, *, next_echo: bool = False) -> str | None:
        """Judge the run of short quotes held so far: shown, dropped, or ``None`` (retry: an echo).
        It goes with an echo just before or after it."""
        text, self._quote = "".join(self._quote), []
        if not text:
            return ""
        if next_echo or self._after_echo or self._echo(text):
            if self.can_retry and not self.shown:
                return None
            self._dropped.append(text)
            self._cut_last = True
            return ""
        return self._show(text)

    def _echo(self, text: str) -> bool:
        return echo_clause(self.user_text, text) or any(
            echo_clause(line, text, short_clauses=False) for line in self.earlier
        )

    def _show(self, text: str) -> str:
        self._cut_last = False
        if self.shown:
            return text
        self._opening += text.lstrip(_LEADING) if self._dropped and not self._opening else text
        if len(units(self._opening)) < MIN_OPENING:
            return ""
        text, self._opening, self.shown = self._opening, "", True
        return text
