"""A SillyTavern group chat as plain data: its members, who is muted, how it picks and joins.

``Group`` is the group file's meaning (``groups/<id>.json``: members by avatar file name, muted
members, activation strategy, generation mode, join prefix/suffix, self-responses); ``Cast`` is a
group with its members' character objects (ST's stored shape: top-level fields plus ``data``),
keyed by avatar file name.  A tavern state with a ``cast`` assembles as SillyTavern does in that
group, with the state's ``card`` / ``avatar`` being the member who speaks (``speak_as``).

Names follow SillyTavern: a member whose card is missing is skipped everywhere (``getGroupNames``
filters them out), and a muted member still counts in ``{{group}}`` but not in
``{{groupNotMuted}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any

import msgspec


class Activation(IntEnum):
    """``activation_strategy``: how the members who answer a message are chosen."""

    NATURAL = 0  # mentions, then talkativeness rolls
    LIST = 1  # every unmuted member in order
    MANUAL = 2  # nobody answers a user message; /trigger picks
    POOLED = 3  # one member who has not spoken since the user last did


class GenerationMode(IntEnum):
    """``generation_mode``: whose card fields each request carries."""

    SWAP = 0  # the speaker's only
    APPEND = 1  # every unmuted member's, joined ("join character cards, exclude muted")
    APPEND_DISABLED = 2  # every member's, muted ones too ("join, include muted")


def _int(value: Any, default: int) -> int:
    """``Number(x ?? default)`` for the enum fields; anything that is no whole number → default."""
    if value is None or isinstance(value, bool):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return int(number) if number.is_integer() else default


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


class Group(msgspec.Struct, frozen=True):
    """The assembly-relevant fields of a SillyTavern group file."""

    members: tuple[str, ...]  # avatar file names, in the group's order
    disabled: tuple[str, ...] = ()  # muted members (``disabled_members``)
    activation: int = Activation.NATURAL
    mode: int = GenerationMode.SWAP
    join_prefix: str = ""
    join_suffix: str = ""
    allow_self_responses: bool = False
    id: str = ""
    name: str = ""
    chat_id: str = ""

    @classmethod
    def from_st(cls, raw: Mapping[str, Any]) -> Group:
        """A group file's object (unknown and malformed fields fall back to SillyTavern's defaults)."""
        prefix = raw.get("generation_mode_join_prefix")
        suffix = raw.get("generation_mode_join_suffix")
        return cls(
            members=_strings(raw.get("members")),
            disabled=_strings(raw.get("disabled_members")),
            activation=_int(raw.get("activation_strategy"), Activation.NATURAL),
            mode=_int(raw.get("generation_mode"), GenerationMode.SWAP),
            join_prefix=prefix if isinstance(prefix, str) else "",
            join_suffix=suffix if isinstance(suffix, str) else "",
            allow_self_responses=bool(raw.get("allow_self_responses")),
            id=str(raw.get("id") or ""),
            name=str(raw.get("name") or ""),
            chat_id=str(raw.get("chat_id") or ""),
        )

    def is_muted(self, avatar: str) -> bool:
        return avatar in self.disabled

    @property
    def enabled(self) -> tuple[str, ...]:
        """Members who are not muted, in order (duplicates kept, as ST's filter keeps them)."""
        return tuple(m for m in self.members if m not in self.disabled)

    @property
    def joins_cards(self) -> bool:
        return self.mode in (GenerationMode.APPEND, GenerationMode.APPEND_DISABLED)


def card_name(card: Mapping[str, Any]) -> str:
    data = card.get("data")
    name = card.get("name") or (data.get("name") if isinstance(data, Mapping) else "")
    return name if isinstance(name, str) else ""


class Cast(msgspec.Struct, frozen=True):
    """A group and its members' character objects, keyed by avatar file name."""

    group: Group
    cards: Mapping[str, dict[str, Any]] = msgspec.field(default_factory=dict)

    def card(self, avatar: str) -> dict[str, Any] | None:
        return self.cards.get(avatar)

    def name(self, avatar: str) -> str:
        card = self.cards.get(avatar)
        return card_name(card) if card is not None else ""

    def present(self, members: tuple[str, ...] | None = None) -> list[str]:
        """The members (default: all) whose character exists, in order."""
        return [m for m in (self.group.members if members is None else members) if m in self.cards]

    def names(self, *, include_muted: bool = True) -> list[str]:
        """Member names in order (``getGroupNames``); empty names are dropped as ST drops them."""
        members = self.group.members if include_muted else self.group.enabled
        return [n for n in (self.name(m) for m in members) if n]

    def avatar_named(self, name: str) -> str | None:
        """The first member (in group order) whose character has this exact name."""
        return next((m for m in self.group.members if m in self.cards and self.name(m) == name), None)

    def macro_names(self, speaker: str, user: str, *, new_engine: bool) -> tuple[str, str, str]:
        """``{{group}}``, ``{{groupNotMuted}}`` and ``{{notChar}}`` with ``speaker`` as ``{{char}}``.

        The 1.17+ macro engine lists the other *unmuted* members for ``{{notChar}}``; SillyTavern's
        legacy pipeline lists every other member and then the user.
        """
        everyone = self.names()
        group = ", ".join(everyone)
        not_muted = ", ".join(self.names(include_muted=False))
        if new_engine:
            others = [n for n in self.names(include_muted=False) if n != speaker]
        else:
            others = [*(n for n in everyone if n != speaker), user]
        return group, not_muted, ", ".join(others)


__all__ = ["Activation", "Cast", "GenerationMode", "Group", "card_name"]
