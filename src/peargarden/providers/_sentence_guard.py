"""The last hold on a small model's streamed reply, sentence by sentence: no model's voice, no loop.

Two things a person would not keep, each in a sentence of its own:

* **a claim to be a model** (:mod:`._model_claims`): 「我是阿里云开发的超大规模语言模型」, "I'm an AI
  model created by OpenAI";
* **a sentence the character said before** (:mod:`._repeats`): the same 「I'm Wren, twenty-six.」
  opening reply after reply — or a whole short reply again (「I am Rowan.」), retried if it may be.

Each sentence is held until it ends (or, a long one, until :data:`HOLD` characters of it are judged
clean: the copy block already keeps long runs of earlier replies from being written), then shown or
cut (:func:`._sentences.cut` keeps the quote marks it opened or closed).  A claim in the reply's
first sentence stops a try that may be retried (``feed``/``finish`` return ``None``, ``outcome`` says
why), as the echo guard does; any other such sentence is cut and the reply goes on.  A try with
nothing left once its sentences are cut is retried too, if it may be.

The last try never ends empty and never in the model's voice: if nothing is left but sentences said
before, they are shown (in character, if said again); if nothing is left at all, the *fallback* — a
short line in the character's voice the request carries (``ChatRequest.fallback_reply``, made from
the card) — stands in for the claim.  Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._model_claims import claims_to_be_a_model, cut_claims
from ._repeats import SaidBefore
from ._sentences import kept_marks, sentence_end

__all__ = ["DEFAULT_FALLBACK", "HOLD", "SentenceGuard"]

# A sentence this long with no claim in it yet is shown before it ends.
HOLD = 60
# Stands for the character after a boundary: a space (an English "." ends a sentence only before one)
# and then a character that closes nothing.
_BOUNDARY = " \x00"
# When the request brings no line of the character's: a pause, not a claim.
DEFAULT_FALLBACK = "……"


def _has_words(text: str) -> bool:
    return any(char.isalnum() for char in text)


class SentenceGuard:
    """Text in as it streams, judged sentences out (see the module's docstring)."""

    def __init__(self, *, can_retry: bool, said: Sequence[str] = (), fallback: str = "") -> None:
        self.can_retry = can_retry
        self.fallback = fallback.strip() or DEFAULT_FALLBACK
        self.outcome = ""  # "claim" or "repeat" once feed or finish returned None
        self._said = SaidBefore(said)
        self._reply = ""  # every sentence judged so far, as the model wrote it
        self._held = ""  # the sentence being written
        self._through = False  # the held sentence is a long one already let through
        self._marks = ""  # marks of cut sentences, held until a shown sentence carries them
        self._claims = False  # a claim was cut
        self._repeats = False  # a sentence said before was cut
        self.shown = False

    def feed(self, text: str, *, at_boundary: bool = False) -> str | None:
        """What can be shown now ("" = hold on), or ``None``: generate again (``outcome`` says why).
        *at_boundary*: the guard before this one (the echo guard) let *text* through only after it saw
        the character that follows, so a sentence that ends *text* is whole now: waiting for that
        character again would show every sentence a clause late (and lose it to a crash)."""
        self._held += text
        out: list[str] = []
        while (end := self._whole_sentence(at_boundary)) > 0:
            sentence, self._held = self._held[:end], self._held[end:]
            judged = self._judge(sentence)
            if judged is None:
                return None
            out.append(judged)
        if self._held and (self._through or (len(self._held) >= HOLD and not claims_to_be_a_model(self._held))):
            self._through = True  # the rest of this sentence streams as it comes
            out.append(self._pass(self._held))
            self._held = ""
        return "".join(out)

    def _whole_sentence(self, at_boundary: bool) -> int:
        """The end of the held text's first whole sentence, or -1 (see :meth:`feed`)."""
        end = sentence_end(self._held)
        if end < 0 and at_boundary and self._held and sentence_end(self._held + _BOUNDARY) >= len(self._held):
            return len(self._held)
        return end

    def finish(self) -> str | None:
        """The rest once the reply is complete, or ``None`` (a retry may follow)."""
        if self.can_retry and not self.shown and self._said.whole(self._reply + self._held):
            self.outcome = "repeat"  # a short reply said again whole: too short for a sentence's bound
            return None
        rest = self._judge(self._held) if self._held else ""
        self._held = ""
        if rest is None:
            return None
        if self.shown or not (self._claims or self._repeats):
            rest, self._marks = rest + self._marks, ""  # (a reply of marks only, "……", was held whole)
            return rest
        # Every sentence was cut.
        if self.can_retry:
            self.outcome = "claim" if self._claims else "repeat"
            return None
        self.shown = True
        if not self._claims:
            return self._reply.lstrip()  # said before, but in character: better than nothing
        left = cut_claims(self._reply)
        return left if _has_words(left) else self.fallback

    def _judge(self, sentence: str) -> str | None:
        if self._through:
            self._through = False
            return self._pass(sentence)
        if claims_to_be_a_model(sentence):
            if self.can_retry and not self.shown:
                self.outcome = "claim"
                return None
            self._claims = True
            return self._cut(sentence)
        if self._said.repeats(sentence):
            self._repeats = True
            return self._cut(sentence)
        return self._pass(sentence)

    def _cut(self, sentence: str) -> str:
        self._marks += kept_marks(self._reply, sentence)
        self._reply += sentence
        return ""

    def _pass(self, text: str) -> str:
        self._reply += text
        if not self.shown:
            if not _has_words(text):
                self._marks += text
                return ""
            text = (self._marks + text).lstrip()
            self._marks, self.shown = "", True
            return text
        text, self._marks = self._marks + text, ""
        return text
