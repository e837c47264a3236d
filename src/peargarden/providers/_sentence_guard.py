"""The last hold on a small model's streamed reply, sentence by sentence: no model's voice, no loop.

Four things a person would not keep, each in a sentence of its own:

* **a claim to be a model** (:mod:`._model_claims`): 「我是阿里云开发的超大规模语言模型」, "I'm an AI
  model created by OpenAI";
* **the character calling itself by someone else's name** (:mod:`._self_names`): the user's ("I'm
  Rowan", reason ``user``) or another person's of the card and lore ("I'm Aldric", reason ``name``),
  judged and retried as a claim is; and **the character writing the user's part**
  (:mod:`._user_actions`, reason ``user``): an action that opens on the user, "*You step back from
  the door.*", 「（你推门进来）」;
* **a sentence the character said before** (:mod:`._repeats`): the same 「I'm Wren, twenty-six.」
  opening reply after reply — or a whole short reply again (「I am Rowan.」), retried if it may be;
* **a sentence made of the user's words** (:mod:`._restated`, reason ``echo``): the question restated
  as the answer, a long turn re-voiced — the echoes too loose for the echo guard's clauses.

Each sentence is judged when it ends, but shown before that, clause by clause: a small model writes
one long sentence a reply, and holding it whole showed nothing until the reply was over (issue 49:
the first text came with the end in every timed beat).  A clause goes out once it is complete,
unless the sentence so far already claims to be a model or says again what was said before (it is
held then, until the sentence is judged).  A sentence judged bad once it ends is cut, and what of
it was shown is *taken back* (:class:`Shown` ``back``: the provider sends a ``TextRetract``), as a
swipe would replace it; :func:`._sentences.cut` keeps the quote marks it opened or closed.  A
claim in the reply's first sentence stops a try that may be retried (``feed``/``finish`` return
``None``, ``outcome`` says why; the provider takes back what the try showed), as the echo guard
does; any other such sentence is cut and the reply goes on.  A try with nothing left once its
sentences are cut is retried too, if it may be.

The last try never ends empty and never in the model's voice: if nothing is left but sentences said
before, they are shown (in character, if said again); if nothing is left at all, the *fallback* — a
short line in the character's voice the request carries (``ChatRequest.fallback_reply``, made from
the card) — stands in for the claim.  Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ._echo import clause_end
from ._model_claims import claims_to_be_a_model
from ._repeats import SaidBefore
from ._restated import restates
from ._self_names import Names, wrong_name
from ._sentences import cut, kept_marks, sentence_end
from ._user_actions import acts_for_user

__all__ = ["DEFAULT_FALLBACK", "HOLD", "SentenceGuard", "Shown"]

# A clause this long with no end yet (no punctuation) is shown before it ends, unless it claims.
HOLD = 60
# Stands for the character after a boundary: a space (an English "." ends a sentence only before one)
# and then a character that closes nothing.
_BOUNDARY = " \x00"
# When the request brings no line of the character's: a pause, not a claim.
DEFAULT_FALLBACK = "……"


class Shown(msgspec.Struct, frozen=True):
    """What the guard lets out: first take back *back* (the end of what it let out before, a
    sentence judged bad once it ended; *reason*: ``claim`` or ``repeat``), then show *text*."""

    text: str = ""
    back: str = ""
    reason: str = ""


def _has_words(text: str) -> bool:
    return any(char.isalnum() for char in text)


def _clauses_end(text: str, at_boundary: bool) -> int:
    """Where the whole clauses at the start of *text* end (0: none yet).  *at_boundary*: *text* ends
    at one (the echo guard let it through only once it saw what follows)."""
    if at_boundary:
        return len(text)
    end = 0
    while (step := clause_end(text[end:])) >= 0:
        end += step
    return end


class SentenceGuard:
    """Text in as it streams, judged sentences out (see the module's docstring)."""

    def __init__(
        self,
        *,
        can_retry: bool,
        said: Sequence[str] = (),
        fallback: str = "",
        names: Names | None = None,
        user_line: str = "",
    ) -> None:
        self.can_retry = can_retry
        self.user_line = user_line
        self.fallback = fallback.strip() or DEFAULT_FALLBACK
        self.outcome = ""  # "claim", "user", "name" or "repeat" once feed or finish returned None
        self._names = names
        self._said = SaidBefore(said)
        self._reply = ""  # every sentence judged so far, as the model wrote it
        self._held = ""  # the sentence being written (what of it was shown too)
        self._preview = ""  # what of that sentence was shown before it was judged
        self._marks = ""  # marks of cut sentences, held until a shown sentence carries them
        self._claims = ""  # why the first sentence out of character was cut ("claim", "user", "name")
        self._repeats = ""  # why the first sentence in character was cut ("repeat", "echo")
        self._cut_reason = ""  # why the last sentence judged was cut ("" if it was not)
        self.shown = False

    def feed(self, text: str, *, at_boundary: bool = False) -> Shown | None:
        """What can be shown now (``Shown("")`` = hold on), or ``None``: generate again (``outcome``
        says why; what the try showed is the caller's to take back).  *at_boundary*: the guard before
        this one (the echo guard) let *text* through only after it saw the character that follows,
        so a sentence or a clause that ends *text* is whole now: waiting for that character again
        would show every sentence a clause late (and lose it to a crash)."""
        self._held += text
        out: list[str] = []
        back = reason = ""
        while (end := self._whole_sentence(at_boundary)) > 0:
            sentence, self._held = self._held[:end], self._held[end:]
            judged = self._judge(sentence)
            if judged is None:
                return None
            taken, shown = self._settle(judged)
            if taken:  # only the first sentence of a feed was shown in part before
                back, reason = taken, self._cut_reason or "repeat"
            out.append(shown)
        out.append(self._show_clauses(at_boundary))
        return Shown("".join(out), back, reason)

    def _whole_sentence(self, at_boundary: bool) -> int:
        """The end of the held text's first whole sentence, or -1 (see :meth:`feed`)."""
        end = sentence_end(self._held)
        if end < 0 and at_boundary and self._held and sentence_end(self._held + _BOUNDARY) >= len(self._held):
            return len(self._held)
        return end

    def _show_clauses(self, at_boundary: bool) -> str:
        """The sentence being written, shown up to its last whole clause (or, a long clause with no
        end, all of it) — unless what of it there is claims or says again what was said before."""
        end = _clauses_end(self._held, at_boundary)
        if end == 0 and len(self._held) >= HOLD:
            end = len(self._held)
        part = self._held[:end]
        if not part or self._out_of_character(part) or self._said.repeats(part):
            return ""
        # As _pass would show it once the sentence passes, so the judged sentence goes on from here.
        preview = (self._marks + part).lstrip() if not self.shown else self._marks + part
        if not self.shown and not _has_words(part):
            preview = ""
        if len(preview) <= len(self._preview) or not preview.startswith(self._preview):
            return ""
        more, self._preview = preview[len(self._preview) :], preview
        return more

    def _settle(self, judged: str) -> tuple[str, str]:
        """(what of the sentence shown before must be taken back, what to show now) once it is judged."""
        before, self._preview = self._preview, ""
        if judged.startswith(before):
            return "", judged[len(before) :]
        return before, judged

    def finish(self) -> Shown | None:
        """The rest once the reply is complete, or ``None`` (a retry may follow)."""
        if self.can_retry and not self.shown and self._said.whole(self._reply + self._held):
            self.outcome = "repeat"  # a short reply said again whole: too short for a sentence's bound
            return None
        rest = self._judge(self._held) if self._held else ""
        self._held = ""
        if rest is None:
            return None
        reason = self._cut_reason or "repeat"
        if self.shown or not (self._claims or self._repeats):
            rest, self._marks = rest + self._marks, ""  # (a reply of marks only, "……", was held whole)
            return self._finished(rest, reason)
        # Every sentence was cut.
        if self.can_retry:
            self.outcome = self._claims or self._repeats
            return None
        self.shown = True
        if not self._claims:
            return self._finished(self._reply.lstrip(), reason)  # said before, but in character: better than nothing
        left = cut(self._reply, lambda sentence: bool(self._out_of_character(sentence, "")))
        return self._finished(left if _has_words(left) else self.fallback, reason)

    def _finished(self, text: str, reason: str) -> Shown:
        taken, shown = self._settle(text)
        return Shown(shown, taken, reason if taken else "")

    def _out_of_character(self, text: str, before: str | None = None) -> str:
        """``"claim"`` (a model's voice), ``"user"`` (the user's name taken, or the user's part
        written: an action that opens on the user), ``"name"`` (another person's name taken), or "".
        *before*: the reply before *text* (None: the reply judged so far)."""
        if claims_to_be_a_model(text):
            return "claim"
        if acts_for_user(text, before=self._reply if before is None else before):
            return "user"
        return wrong_name(text, self._names) if self._names is not None else ""

    def _judge(self, sentence: str) -> str | None:
        self._cut_reason = ""
        if reason := self._out_of_character(sentence):
            if self.can_retry and not self.shown:
                self.outcome = reason
                return None
            self._claims = self._claims or reason
            self._cut_reason = reason
            return self._cut(sentence)
        if self.user_line and restates(self.user_line, sentence):
            if self.can_retry and not self.shown:
                self.outcome = "echo"  # generated again, steered off the user's words
                return None
            self._repeats = self._repeats or "echo"
            self._cut_reason = "echo"
            return self._cut(sentence)
        if self._said.repeats(sentence):
            self._repeats = self._repeats or "repeat"
            self._cut_reason = "repeat"
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
