"""A character acting for the user: "*You lean against the wall, looking out at the trees.*"

On issue 49's English panel Qwen2.5-1.5B, as Wren, wrote the user's moves in three of twelve replies —
"*You step back from the door and look out into the glade.*", "*You step out of the story and go back
outside.*" — which the rule of the small-model prompt forbids ("Never speak or act for {user}") and
which a role-play writer throws away first: the model took the user's turn.  In both languages an
action or a description is set apart (``*…*`` in English cards, 「（…）」 or ``(…)`` in Chinese ones);
one that opens on the user — "You", "Your", 「你」 — is the character writing the user's part.

What is *not* such an action: the same words in speech ("“You look tired,” she says." — the
character talking to the user), and a "you" later in the action ("*She hands you the key.*").  An
action that opened in an earlier sentence and goes on in this one counts by this sentence's start
(:func:`action_open` over the reply before it).  Pure functions.
"""

from __future__ import annotations

import re

__all__ = ["action_open", "acts_for_user"]

# The user as an action's subject.  「你们」 (the user and others) counts too; 「你好」 is a greeting.
_USER_FIRST = re.compile(r"\s*(?:You\b|Your\b|你(?!好))")


def action_open(text: str) -> bool:
    """Whether *text* leaves an action open at its end (an odd number of ``*``, or more 「（」 / ``(``
    opened than closed)."""
    return text.count("*") % 2 == 1 or text.count("（") > text.count("）") or text.count("(") > text.count(")")


def _quote_open(text: str) -> bool:
    """Whether *text* ends inside speech: what follows is the character talking, whatever the action
    marks around it say (a small model leaves a ``*`` unclosed: "…three days.*She looks around,* \"…")."""
    return text.count('"') % 2 == 1 or text.count("“") > text.count("”") or text.count("「") > text.count("」")


def acts_for_user(sentence: str, *, before: str = "") -> bool:
    """Whether *sentence* has an action that opens on the user (see the module's docstring); *before*:
    what of the reply came before it (an action it left open goes on in *sentence*)."""
    if action_open(before) and not _quote_open(before) and _USER_FIRST.match(sentence):
        return True
    stars = before.count("*")  # odd: the next "*" closes an action
    for at, char in enumerate(sentence):
        if char == "*":
            stars += 1
            if stars % 2 == 0:
                continue
        elif char not in "（(":
            continue
        if _USER_FIRST.match(sentence, at + 1):
            return True
    return False
