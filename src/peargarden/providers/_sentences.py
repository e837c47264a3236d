"""A reply's sentences, and cutting some of them out without breaking its quotes.

The sentence guard (:mod:`._sentence_guard`) judges a small model's reply sentence by sentence and
cuts the ones it must not show (a claim to be a model, a sentence said before).  A sentence ends at
。！？!? or a line break, or at a full stop followed by a space or a closing mark ("3.5" and "Mr.Li"
stay whole), and takes the closing marks right after it along, then the spaces ('“好。”', '.* ').

A cut sentence may open or close a quote or an action's asterisk the rest of the reply relies on
('"I'm Wren, twenty-six. The rain will stop."'): :func:`cut` keeps those marks, so the rest reads
'"The rain will stop."'.  Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable

from ._echo import open_marks, split_at

__all__ = ["cut", "kept_marks", "sentence_end", "split_sentences"]

_ENDS = "。！？!?\n"
# Closing marks that belong to the sentence they follow (then the spaces after them do too).
_CLOSERS = "。！？!?.…”’」』）)\"'*"
_SPACES = " \n"
_PAIRS = {"”": "“", "」": "「", "』": "『", "）": "（", ")": "(", '"': '"', "*": "*"}


def sentence_end(text: str) -> int:
    """The end of *text*'s first whole sentence (its closing marks and spaces included), or -1 when
    none is complete yet: a sentence is complete only once a character that is not one of its
    closing marks follows, so '？”' and '. "' stay with their sentence."""
    for index, char in enumerate(text):
        if char in _ENDS or (char == "." and index + 1 < len(text) and text[index + 1] in _CLOSERS + _SPACES):
            end = index + 1
            while end < len(text) and text[end] in _CLOSERS:
                end += 1
            while end < len(text) and text[end] in _SPACES:
                end += 1
            return end if end < len(text) else -1
    return -1


def split_sentences(text: str) -> list[str]:
    """*text* cut after each sentence's closing marks; joined again they give *text*."""
    return split_at(text, sentence_end)


def kept_marks(before: str, sentence: str) -> str:
    """What stays of *sentence* (after the text *before*) when it is cut: the marks it closes that
    *before* opened, then the marks it opens and leaves open — so that the reply's quotes and
    asterisks still pair up without it."""
    owed_before, owed_after = open_marks(before), open_marks(before + sentence)
    # Both are innermost first; what they share at the end (the outer marks) the sentence left alone.
    shared = 0
    while (
        shared < min(len(owed_before), len(owed_after))
        and owed_before[len(owed_before) - 1 - shared] == owed_after[len(owed_after) - 1 - shared]
    ):
        shared += 1
    closed = owed_before[: len(owed_before) - shared]
    opened = owed_after[: len(owed_after) - shared]
    return closed + "".join(_PAIRS[mark] for mark in reversed(opened))


def cut(text: str, drop: Callable[[str], bool]) -> str:
    """*text* without the sentences *drop* says yes to (their marks kept, see :func:`kept_marks`),
    with no spaces around what is left.  It may be only marks or empty: the caller decides."""
    kept: list[str] = []
    before = ""
    for sentence in split_sentences(text):
        kept.append(kept_marks(before, sentence) if drop(sentence) else sentence)
        before += sentence
    return "".join(kept).strip()
