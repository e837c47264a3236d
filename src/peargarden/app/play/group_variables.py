"""A group chat's variables for the fronts: ``pear vars show --chat ID`` on a group's chat, the group
page, the status line after a round.

A group chat is one chat: its records sit on its messages as in a card's chat, numbered as the
group's SillyTavern file numbers them (one line per reply, :func:`~.chat_variables.branch_variables`).
MVU keeps them when the chat already holds MVU records or a member's card
calls for it.  Unlike a card's chat no seed is shown before the first round: in a group the seed
is written when an MVU member's turn first starts, onto the latest message then
(``docs/variables.md``, *Group chats*).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from peargarden.errors import NotFound
from peargarden.modes.base import BeatEnv
from peargarden.modes.chat_variables import mvu_active, scripts_allowed
from peargarden.modes.tavern.variables import card_books
from peargarden.sessions.tree import SessionTree
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.config import Settings, load_settings
from peargarden.workspace.groups import list_groups, member_card
from peargarden.workspace.home import Home

from .chat_records import find_chat
from .chat_variables import ChatVariables, branch_variables, card_keeps_variables, stored_variables

__all__ = ["group_variables", "keeps_variables", "members_keep_variables", "variables_of_chat"]


def keeps_variables(members: Sequence[tuple[CardFolder, Settings]]) -> bool:
    """Whether a member's card keeps MVU variables (*members*: each card with its settings)."""
    return any(card_keeps_variables(folder, settings)[0] for folder, settings in members)


def members_keep_variables(envs: Iterable[BeatEnv]) -> bool:
    """:func:`keeps_variables` of an open group chat's members, their books read through each
    member's per-chat cache (checked before every round: a book mounted meanwhile counts)."""
    return any(mvu_active(scripts_allowed(env), card_books(env)) for env in envs)


def group_variables(
    tree: SessionTree, header: Mapping[str, Any], members: Sequence[tuple[CardFolder, Settings]]
) -> ChatVariables:
    """The variables of a group chat's active branch (see the module docstring)."""
    result = branch_variables(tree, header)
    result.mvu = result.mvu or keeps_variables(members)
    return result


def variables_of_chat(home: Home, chat_id: str) -> ChatVariables:
    """``pear vars show``: the variables of the stored chat *chat_id*, a card's or a group's."""
    try:
        return stored_variables(home, find_chat(home, chat_id))
    except NotFound:
        pass
    config = load_settings(home.config_file)
    for folder in list_groups(home):
        if chat_id not in folder.chat_ids():
            continue
        chat = ChatFile.open(folder.chats_dir, chat_id)
        cards = [card for avatar in folder.read().members if (card := member_card(home, avatar)) is not None]
        return group_variables(chat.tree, chat.header, [(card, card.effective_settings(config)) for card in cards])
    raise NotFound(f"没有对话 {chat_id}（no such chat）", hint="用 pear sessions list 或 pear group list 查看")
