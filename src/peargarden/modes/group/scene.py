"""What every speaker of a group round shares: the group, its members, who speaks now, who is next.

A group chat gives each member its own :class:`GroupBeatEnv` — a :class:`~peargarden.modes.base.BeatEnv`
over that member's card folder (its files, its ``卡.json``, its own per-chat cache: the caches key
on a card's books, so members must not share one) — and every env points at the same
:class:`GroupScene`.  The group's setups (:mod:`.tavern`, :mod:`.stage`) read the speaker and the
cast from it; the service sets the speaker before each reply.
"""

from __future__ import annotations

from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.modes.base import BeatEnv
from peargarden.tavern.group import Cast, Group
from peargarden.workspace.cards import CardFolder

# How the stage picks who speaks after the first speaker of a round: the group's strategy alone
# (SillyTavern's), or the speaking model through the ``next_speaker`` tool.
SPEAKER_CHOICES = ("strategy", "model")


class Member(msgspec.Struct, frozen=True):
    """One member of the group whose card is in the data folder."""

    avatar: str  # the member's name in the group file (SillyTavern's avatar file name)
    card: CardFolder
    name: str  # the character's name
    card_object: dict[str, Any]  # the card as SillyTavern holds it (V2 object), for the cast


class GroupScene(msgspec.Struct):
    """The group as the round sees it (one object shared by every member's env)."""

    group: Group
    members: dict[str, Member]  # by avatar, in the group's order; members without a card are left out
    title: str = ""  # the group's name as people read it
    speaker_choice: str = "strategy"
    # Pear Garden's ``tavern`` settings for the group (群.json); None: each member card's own.
    tavern: dict[str, Any] | None = None
    speaker: str = ""  # the avatar speaking now
    spoken: list[str] = msgspec.field(default_factory=list)  # avatars who spoke in this round, in order
    # What the speaking model asked for through ``next_speaker`` (an avatar), or ``user``.
    handed_to: str | None = None
    # A member's card keeps MVU variables (its books seed or update them): every speaker's stage
    # gets the variables tool, as the variables are the scene's, not one member's.
    keeps_variables: bool = False

    @property
    def cast(self) -> Cast:
        return Cast(self.group, {avatar: m.card_object for avatar, m in self.members.items()})

    def member(self, avatar: str) -> Member:
        try:
            return self.members[avatar]
        except KeyError:
            raise BadInput(f"群聊里没有成员 {avatar!r}") from None

    @property
    def current(self) -> Member:
        return self.member(self.speaker)

    def avatar_named(self, name: str) -> str | None:
        """The member called *name* (its character name, or its card folder), or ``None``."""
        wanted = name.strip()
        for avatar, member in self.members.items():
            if wanted in (member.name, member.card.folder, avatar):
                return avatar
        folded = wanted.casefold()
        for avatar, member in self.members.items():
            if folded in (member.name.casefold(), member.card.folder.casefold()):
                return avatar
        return None

    def start_round(self) -> None:
        self.spoken = []
        self.handed_to = None


class GroupBeatEnv(BeatEnv):
    """A member's env in a group chat: the member's card, and the scene it shares with the others."""

    scene: GroupScene | None = None
    member: str = ""  # this env's avatar

    @property
    def group_chat(self) -> bool:
        return True

    @property
    def shares_variables(self) -> bool:
        return self.scene is not None and self.scene.keeps_variables


def group_scene(env: BeatEnv) -> tuple[GroupScene, str]:
    """The scene and the member of a group env (``BadInput`` for a single card's chat)."""
    if not isinstance(env, GroupBeatEnv) or env.scene is None:
        raise BadInput("这种对话方式只用于群聊（a group mode outside a group chat）")
    return env.scene, env.member
