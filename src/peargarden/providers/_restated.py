"""A sentence made of the user's words: the question restated as the answer, a long turn re-voiced.

The echo guard (:mod:`._echo`) judges a reply clause by clause, in runs of the user's words: a clause
said again, a stretch of ten units.  On issue 49's English panel Qwen2.5-0.5B got past it with
sentences that take the user's words in order, a few changed or skipped:

* "Aldric left from the Greywater ford in 1649." to "Ten years ago a young ranger called Aldric left
  from the Greywater ford. Do you remember him?" — the user's sentence handed back as news;
* "You'll have a boatman tell me the guardian of the shrine." out of the long turn's "a boatman told
  me the guardian of the shrine remembers…" — re-voiced, a word changed in the middle, so no run
  reaches the guard's bound;
* 「如果只是一句、一项旧物也好，请告诉我我好回去给你老夫人交代。」 out of 「哪怕只是一句话、一件旧物也
  好……还请告诉我，我好回去给老夫人一个交代。」 — across the user's clause boundary (the comma after
  告诉我), where neither clause alone is long enough;
* "I'm not sure, but I don't know anyone here knows where he went." — six words of the long turn
  ("whether anyone here knows where he went") inside a sentence of the model's own; "Aldric asks me
  to find out who has left home ten years ago." — five ("He left home ten years ago"), each of them
  but one a word that carries meaning.

So the whole sentence is compared, in the echo guard's person-neutral units (a Chinese character,
an English word; I / you, 我 / 你 one unit): it restates the user's line when it has at least
:data:`MIN_UNITS` units, at least :data:`SHARE` of them are a subsequence of the line (the line's
words in the line's order), and that subsequence holds at least :data:`MIN_CONTENT` units that are
not function words (「的」「是」, "the", "of": "the bell is the one at the door" is no echo of "the
rain at the door"); or when it shares a run of English words with the line: :data:`MIN_WORDS` of
them, three content words, or one word fewer, all content words but one (the echo guard's bound
is ten units, a clause of Chinese: in English that is two lines of a quote).  Chinese keeps the
echo guard's bound: on the panels a run of seven characters was an answer (「镇北渡口每天有十几班船」
to 「镇北渡口每天有几班船？」).  A sentence that answers in the question's words but adds its own —
"The ferry can cross at the Greywater ford once a day." (7 of 11, a run of five words, three of them
content words), 「镇北渡口每天有十几班船，…」 inside a longer sentence — stays.  Measured on the
panels' replies (``bench/bench_guard_agreement.py``, docs/benchmarks/embedded-model.md).  Pure.
"""

from __future__ import annotations

from ._echo import echo_units, units, wide

__all__ = ["MIN_CONTENT", "MIN_UNITS", "MIN_WORDS", "SHARE", "restates"]

MIN_UNITS = 6
SHARE = 0.75
MIN_CONTENT = 3
MIN_WORDS = 6

_EN_FUNCTION = (
    "a an the is am are was were be been to of and or in on at it its this that these those here there do does "
    "did so as for with by from not no yes oh ah have has had will would can could he she him her his they them "
    "their we us our"
)
_ZH_FUNCTION = "的了是在吗呢吧啊呀么嘛也都就还又这那个有和与他她它们一不要想"
_FUNCTION = frozenset({units(word) for word in _EN_FUNCTION.split()} | set(_ZH_FUNCTION))
# The person-neutral units (I / you, am / are) say nothing about the sentence either.
_PERSON_UNITS = frozenset(echo_units("I am"))


def _common(a: str, b: str) -> tuple[int, int]:
    """(length, content units) of a longest common subsequence of *a* and *b*, the one with the most
    content units among the longest (short texts: dynamic programming over pairs, compared in order)."""
    previous = [(0, 0)] * (len(b) + 1)
    for x in a:
        weight = _content(x)
        current = [(0, 0)]
        for j, y in enumerate(b):
            best = max(previous[j + 1], current[j])
            if x == y:
                length, content = previous[j]
                best = max(best, (length + 1, content + weight))
            current.append(best)
        previous = current
    return previous[-1]


def _word_runs(a: str, b: str) -> list[str]:
    """The runs of English word units (no wide character) that *a* and *b* share, each as long as it goes."""
    runs: list[str] = []
    previous = [0] * (len(b) + 1)
    for i, x in enumerate(a):
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            if x == y and not wide(x):
                current[j + 1] = previous[j] + 1
                if i + 1 == len(a) or j + 1 == len(b) or a[i + 1] != b[j + 1] or wide(a[i + 1]):
                    runs.append(a[i + 1 - current[j + 1] : i + 1])
        previous = current
    return runs


def _content(units_: str) -> int:
    return sum(unit not in _FUNCTION and unit not in _PERSON_UNITS for unit in units_)


def restates(user_text: str, sentence: str) -> bool:
    """Whether *sentence* (one sentence of a reply) is the user's line restated (see the module doc)."""
    piece = echo_units(sentence)
    if len(piece) < MIN_UNITS:
        return False
    user = echo_units(user_text)
    length, content = _common(piece, user)
    if length >= SHARE * len(piece) and content >= MIN_CONTENT:
        return True
    return any(_quoted(len(run), _content(run)) for run in _word_runs(piece, user))


def _quoted(size: int, content: int) -> bool:
    """A run of *size* of the user's English words, *content* of them content words, is a quote, not
    a topic taken up ("cross at the Greywater ford": five words, three content words, is a topic)."""
    return (size >= MIN_WORDS and content >= MIN_CONTENT) or (size >= MIN_WORDS - 1 and content >= size - 1)
