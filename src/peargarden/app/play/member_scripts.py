"""A group chat's messages as each member shows them: a member's reply runs that member's own display
scripts (its status bar, its styled blocks), with ``{{char}}`` its name, when the user allowed that
card's scripts — not the scripts of whichever member spoke last, which the page model used for every
message.  The user's messages run none in a group (no one card is theirs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from peargarden.sessions.entries import Entry

from ..cards.regex_allowance import card_scripts_allowed
from .chat_page import Speaker
from .display_scripts import card_display_scripts

if TYPE_CHECKING:
    from .group_session import GroupSession


def member_speakers(session: GroupSession) -> Callable[[Entry], Speaker | None]:
    """Who wrote a message of *session* as the page model needs it (``chat_view``'s *speakers*)."""
    members = {member.card.folder: member for member in session.the_scene.members.values()}
    known: dict[str, Speaker] = {}

    def speaker(entry: Entry) -> Speaker | None:
        card = session.card_of(entry.id) if entry.role == "assistant" else None
        member = members.get(card) if card is not None else None
        if member is None:
            return None
        if card not in known:
            scripts = card_display_scripts(member.card_object) if card_scripts_allowed(member.card) else []
            known[member.card.folder] = Speaker(member.card.folder, member.name, scripts)
        return known[member.card.folder]

    return speaker
