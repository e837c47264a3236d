"""Who speaks next in a group chat (``generateGroupWrapper``'s choice), as pure functions.

Every random choice draws from the ``random`` passed in (JavaScript's ``Math.random()``:
uniform in [0, 1)), in the order SillyTavern draws, so a seeded source replays a recording and a
live one plays as SillyTavern does.  Members are avatar file names; a member whose character is
missing is never chosen.

A round (one user message → N generations) is driven by :func:`choose_speakers`; the caller then
runs one generation per returned member, in order, each seeing the replies before it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import msgspec

from peargarden.text._jsnum import js_number

from .group import Activation, Cast

T = TypeVar("T")
Random = Callable[[], float]
TALKATIVENESS_DEFAULT = 0.5
_WORD = re.compile(r"\b\w+\b", re.ASCII)  # JavaScript's \w and \b know ASCII only
_NARRATOR = "narrator"


def _extra(message: Mapping[str, Any]) -> Mapping[str, Any]:
    extra = message.get("extra")
    return extra if isinstance(extra, Mapping) else {}


def _is_narrator(message: Mapping[str, Any]) -> bool:
    return _extra(message).get("type") == _NARRATOR


def _author(message: Mapping[str, Any]) -> str:
    avatar = message.get("original_avatar")
    return avatar if isinstance(avatar, str) else ""


def js_shuffle(items: Sequence[T], random: Random) -> list[T]:
    """``shuffle`` of SillyTavern's utils: Fisher–Yates from the end, one draw per element."""
    out = list(items)
    index = len(out)
    while index:
        pick = math.floor(random() * index)
        index -= 1
        out[index], out[pick] = out[pick], out[index]
    return out


def extract_words(text: str) -> list[str]:
    """``extractAllWords``: ASCII words, lower-cased (a Chinese name has none)."""
    return [m.group(0).lower() for m in _WORD.finditer(text or "")]


def talkativeness(card: Mapping[str, Any]) -> float:
    """The character's ``talkativeness`` as SillyTavern reads it (``isNaN`` → 0.5; ``""`` → 0)."""
    value = card.get("talkativeness")
    if "talkativeness" not in card:
        data = card.get("data")
        extensions = data.get("extensions") if isinstance(data, Mapping) else None
        if isinstance(extensions, Mapping) and "talkativeness" in extensions:
            value = extensions.get("talkativeness")
        else:
            return TALKATIVENESS_DEFAULT
    number = js_number(value)
    return TALKATIVENESS_DEFAULT if math.isnan(number) else number


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def list_order(cast: Cast, members: Sequence[str]) -> list[str]:
    """LIST: every given member once, in order."""
    return cast.present(tuple(_unique(members)))


def natural_order(
    cast: Cast,
    members: Sequence[str],
    text: str,
    last: Mapping[str, Any] | None,
    *,
    allow_self_responses: bool,
    is_user_input: bool,
    random: Random,
) -> list[str]:
    """NATURAL: members named in ``text`` (in the text's word order), then, in shuffled order,
    everyone whose talkativeness beats a roll; if nobody, one random talkative member.  The
    author of the last message may not answer itself unless self-responses are allowed."""
    banned = None
    if not is_user_input and last is not None and not last.get("is_user") and not allow_self_responses:
        banned = last.get("name") or None
    chosen: list[str] = []
    for word in extract_words(text):
        for member in members:
            card = cast.card(member)
            if card is None or cast.name(member) == banned:
                continue
            if word in extract_words(cast.name(member)):
                chosen.append(member)
                break
    chatty: list[str] = []
    for member in js_shuffle(members, random):
        card = cast.card(member)
        if card is None or cast.name(member) == banned:
            continue
        roll = random()
        chance = talkativeness(card)
        if chance >= roll:
            chosen.append(member)
        if chance > 0:
            chatty.append(member)
    pool = chatty or list(members)
    tries = 0
    while not chosen and tries < len(pool):
        tries += 1
        pick = pool[math.floor(random() * len(pool))]
        if cast.card(pick) is not None:
            chosen.append(pick)
    return cast.present(tuple(_unique(chosen)))


def pooled_order(
    cast: Cast, members: Sequence[str], chat: Sequence[Mapping[str, Any]], *, is_user_input: bool, random: Random
) -> list[str]:
    """POOLED: one random member among those who have not spoken since the user last did; if all
    have, one random member other than the last speaker."""
    spoken: list[str] = []
    if not is_user_input:
        for message in reversed(chat):
            if message.get("is_user"):
                break
            if message.get("is_system") or _is_narrator(message):
                continue
            if _author(message):
                spoken.append(_author(message))
    waiting = [m for m in members if m not in spoken]
    chosen: str | None = None
    if waiting:
        chosen = waiting[math.floor(random() * len(waiting))]
    if chosen is None:
        last = chat[-1] if chat else None
        last_author = _author(last) if last is not None and len(members) > 1 and not last.get("is_user") else ""
        pool = [m for m in members if m != last_author] if last_author else list(members)
        chosen = pool[math.floor(random() * len(pool))] if pool else None
    return cast.present((chosen,)) if chosen is not None else []


def swipe_author(
    cast: Cast, chat: Sequence[Mapping[str, Any]], *, random: Random, allow_system: bool = False
) -> list[str]:
    """``activateSwipe``: who swipes or continues: the author of the last message (of the last
    bot message when the last one is the user's), a random member when nobody can be found."""
    if not chat:
        return []
    last = chat[-1]
    members = cast.group.members
    names: list[str] = []

    def skipped(message: Mapping[str, Any]) -> bool:
        return bool(message.get("is_user") or (not allow_system and message.get("is_system")) or _is_narrator(message))

    if skipped(last):
        for message in reversed(chat):
            if skipped(message):
                continue
            if _author(message):
                names.append(_author(message))
                break
        if not names and members:
            names.append(js_shuffle(members, random)[0])
    if not _author(last):
        # A chat from before original_avatar existed: the first member with the message's name.
        match = next((m for m in members if m in cast.cards and cast.name(m) == last.get("name")), None)
        if match is not None:
            names.append(match)
    else:
        names.append(_author(last))
    return [n for n in names if n in cast.cards]


def impersonate_pick(cast: Cast, random: Random) -> list[str]:
    """``activateImpersonate``: any member, muted ones too, at random."""
    members = cast.group.members
    if not members:
        return []
    return cast.present((members[math.floor(random() * len(members))],))


class RoundCall(msgspec.Struct, frozen=True):
    """What set a group round off."""

    kind: str = "normal"  # normal, swipe, continue, impersonate, quiet
    user_input: str = ""  # the text in the input box (empty for regenerate, /trigger, auto mode)
    force: str | None = None  # the member a /trigger names
    by_auto_mode: bool = False


def choose_speakers(cast: Cast, chat: Sequence[Mapping[str, Any]], call: RoundCall, random: Random) -> list[str]:
    """The members who answer, in order (``generateGroupWrapper``).  Empty: nobody answers, and a
    typed message is only posted (MANUAL, or every member muted)."""
    group = cast.group
    is_user_input = bool(call.user_input) and not call.by_auto_mode
    last = chat[-1] if chat else None
    if is_user_input:
        text = call.user_input
    else:
        text = str(last.get("mes") or "") if last is not None and not last.get("is_system") else ""
    enabled = group.enabled
    if call.force is not None:
        return cast.present((call.force,))
    if call.kind == "quiet":
        return swipe_author(cast, chat, random=random, allow_system=True)[:1] or list_order(cast, group.members[:1])
    if call.kind in ("swipe", "continue"):
        return swipe_author(cast, chat, random=random)
    if call.kind == "impersonate":
        return impersonate_pick(cast, random)
    if group.activation == Activation.NATURAL:
        return natural_order(
            cast,
            enabled,
            text,
            last,
            allow_self_responses=group.allow_self_responses,
            is_user_input=is_user_input,
            random=random,
        )
    if group.activation == Activation.LIST:
        return list_order(cast, enabled)
    if group.activation == Activation.POOLED:
        return pooled_order(cast, enabled, chat, is_user_input=is_user_input, random=random)
    if group.activation == Activation.MANUAL and not is_user_input:
        return cast.present(tuple(js_shuffle(enabled, random)[:1]))
    return []


def round_start(chat: Sequence[Mapping[str, Any]]) -> int:
    """``regenerateGroup``: the index from which the last round's replies go (the trailing bot
    messages sharing the last one's ``extra.gen_id``; without ids, every bot message after the
    last user or system message)."""
    last = chat[-1] if chat else None
    round_id = None
    if last is not None and not last.get("is_user") and not last.get("is_system"):
        round_id = _extra(last).get("gen_id") or None
    start = len(chat)
    while start > 0:
        message = chat[start - 1]
        this_id = _extra(message).get("gen_id") or None
        if round_id and this_id and round_id != this_id:
            break
        if message.get("is_user") or message.get("is_system"):
            break
        start -= 1
    return start


def next_round_id(chat: Sequence[Mapping[str, Any]], now_ms: float) -> int:
    """The id of a new round: the clock in milliseconds (SillyTavern's ``Date.now()``), moved past
    every id already in the chat so that Regenerate never takes an older message with it."""
    latest = int(now_ms)
    for message in chat:
        value = _extra(message).get("gen_id")
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            latest = max(latest, int(value))
    return latest + 1


def _leading_int(text: str) -> int | None:
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else None


def find_member(cast: Cast, arg: str) -> str | None:
    """``findGroupMemberId`` for ``/trigger``: a member by index (from 0) or by name / file name.

    SillyTavern ranks names with a fuzzy search; this takes an exact match (case-insensitive),
    then a name or file name that starts with, then one that contains the text.
    """
    text = arg.strip()
    if not text:
        return None
    members = cast.group.members
    index = _leading_int(text)
    if index is not None:
        member = members[index] if 0 <= index < len(members) else None
        return member if member is not None and member in cast.cards else None
    wanted = text.lower()

    def keys(member: str) -> tuple[str, str]:
        return member.lower(), cast.name(member).lower()

    for test in (
        lambda k: wanted in k or wanted == k[0].rsplit(".", 1)[0],
        lambda k: any(x.startswith(wanted) for x in k),
        lambda k: any(wanted in x for x in k),
    ):
        found = next((m for m in members if test(keys(m))), None)
        if found is not None:
            return found if found in cast.cards else None
    return None


def trim_reply(text: str, cast: Cast, speaker: str) -> str:
    """``cleanGroupMessage``: a reply is cut where another member starts a line with ``Name:``."""
    for member in cast.group.members:
        name = cast.name(member)
        if not name or name == speaker:
            continue
        m = re.search(f"(^|\\n){re.escape(name)}:", text)
        if m:
            text = text[: m.start()]
    return text


__all__ = [
    "RoundCall",
    "choose_speakers",
    "extract_words",
    "find_member",
    "impersonate_pick",
    "js_shuffle",
    "list_order",
    "natural_order",
    "next_round_id",
    "pooled_order",
    "round_start",
    "swipe_author",
    "talkativeness",
    "trim_reply",
]
