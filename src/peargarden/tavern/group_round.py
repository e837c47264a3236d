"""One speaker's turn in a group chat, and the messages a group chat stores.

A round, as SillyTavern runs it (``generateGroupWrapper``) and as a front should drive it:

1. ``speakers = choose_speakers(cast, chat, RoundCall(kind, user_input, force), random)``
   (``group_turns``); none → the typed text is only posted as a user message.
2. ``round_id`` = one id for the whole round (SillyTavern: ``Date.now()`` at its start).
3. For each speaker, in order: :func:`speak_as` (the state's ``card`` / ``avatar`` become that
   member's), the typed text becomes a user message before the *first* generation only, then
   ``generate(state, kind)`` — each later speaker sees the replies before it — and the reply is
   stored with :func:`reply_message` (``original_avatar``, ``force_avatar``, ``extra.gen_id``).

Regenerate deletes ``chat[round_start(chat):]`` and runs a ``normal`` round without text; swipe
and continue take the last message's author; impersonate a random member (no nudge).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from peargarden.formats.chats import format_send_date
from peargarden.formats.groups import avatar_thumbnail, greeting_message, with_first_swipe

from .assemble import Assembly, Generation, generate
from .request import request_body
from .state import TavernState


def speak_as(state: TavernState, avatar: str) -> None:
    """Make ``avatar`` the member who speaks next (SillyTavern's ``setCharacterId``)."""
    cast = state.cast
    if cast is None or cast.card(avatar) is None:
        raise KeyError(avatar)
    card = cast.card(avatar)
    assert card is not None
    state.card = card
    state.avatar = avatar


def speaker_request(
    state: TavernState, avatar: str, gen_type: str = "normal", *, dry_run: bool = False
) -> tuple[Assembly, dict[str, Any]]:
    """One member's generation in the group: the assembly and the request body it sends."""
    speak_as(state, avatar)
    assembly = generate(state, gen_type, dry_run=dry_run)
    body = request_body(
        state.oai, assembly.messages, gen_type, stop=assembly.stop, omit_empty_bias=state.compat.omit_empty_logit_bias
    )
    return assembly, body


def group_fields(message: dict[str, Any], avatar: str, round_id: Any) -> dict[str, Any]:
    """A member's reply gets who spoke, their picture and the round's id."""
    message["force_avatar"] = avatar_thumbnail(avatar)
    message["original_avatar"] = avatar
    extra = message.setdefault("extra", {})
    if isinstance(extra, dict):
        extra["gen_id"] = round_id
    return message


def greetings(state: TavernState, random: Callable[[], float], now_ms: float) -> list[dict[str, Any]]:
    """A new group chat: one greeting per member in order, muted ones too (``getGroupChat``).

    A member with alternate greetings gets one of them at random (one draw); every greeting then
    draws its ``gen_id`` (``Date.now() * Math.random() * 1e6``), as SillyTavern does.  Macros use
    that member as ``{{char}}``.  The state's speaker is left on the last member.
    """
    cast = state.cast
    if cast is None:
        return []
    out: list[dict[str, Any]] = []
    for avatar in cast.present():
        speak_as(state, avatar)
        card = state.card
        text = card.get("first_mes")
        alternates = state.card_data.get("alternate_greetings")
        if isinstance(alternates, list):
            texts = [t for t in [text, *alternates] if isinstance(t, str) and t]
            text = texts[math.floor(random() * len(texts))] if texts else None
        gen_id = now_ms * random() * 1_000_000
        gen = Generation(state, "normal", dry_run=True)
        _, gen.card_fields = gen.card_macro_fields()
        mes = gen.sub(text.strip()) if isinstance(text, str) and text else ""
        if not mes:
            continue
        send_date = format_send_date(state.clock())
        gen_value = int(gen_id) if gen_id.is_integer() else gen_id
        message = greeting_message(cast.name(avatar), avatar, mes, send_date=send_date, gen_id=gen_value)
        out.append(with_first_swipe(message))
    return out


__all__ = ["greetings", "group_fields", "speak_as", "speaker_request"]
