"""The members' TavernHelper scripts in a group chat's page (issue 45): each member card's own scripts,
each call checked against ITS card, over the group chat.

SillyTavern + TavernHelper keys a card's scripts to ``this_chid``, which opening a group chat sets to
``undefined`` (``openGroupById``), so TavernHelper starts no member's character scripts in a group;
during a round SillyTavern makes each speaker ``this_chid`` in turn and sets it back to ``undefined``
once the round ends (``generateGroupWrapper``), without a ``CHAT_CHANGED`` that would load scripts.
Here a member card whose scripts the user allowed plays its scripts in the group's page too (the
player asked for them at import; a bar or a button card joining a group would otherwise go dark) —
``docs/variables.md`` says it is a difference — and what those scripts read of "the current
character" is SillyTavern's: nobody between rounds (``name2`` ``""``), the speaker during the
events of that speaker's reply.

Each member's scripts run as a card chat's do (``page_scripts.py``), on the group chat seen as that
member's chat (:func:`member_chat`: the group's file, lock and numbering — one line per reply, as the
group's SillyTavern file; the member's card, books and state), so a call writes into this group chat
and into its own card's ``卡.json`` only; a call naming a card that is not a member, or a script its
card does not run, is refused.  A script cannot start a round (``triggerSlash('/trigger')``, a beat
of ``generate``): the group's rounds are the page's.

The events of a round, read off SillyTavern's ``generateGroupWrapper`` (no recording has a group
with scripts): the user's message is sent first (``MESSAGE_SENT``, ``USER_MESSAGE_RENDERED``; a swipe
starts with ``MESSAGE_SWIPED``), then ``GROUP_WRAPPER_STARTED``, then for each speaker
``GROUP_MEMBER_DRAFTED`` and the events of one generation as ``page_events.py`` builds them for a
card's beat (from that speaker's request in the round's record; not the token counter's dry runs),
``GROUP_WRAPPER_FINISHED`` last.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from peargarden.errors import BadInput
from peargarden.modes.group.rounds import message_avatar
from peargarden.workspace.script_allowance import scripts_allowance

from . import beat_log
from .chat_variables import ChatVariables
from .group_session import GroupSession
from .page_events import BEATS, change_events, generation_events, settle, started_events, swiping, undrawn
from .page_scripts import PageScriptHost, page_scripts, run_calls
from .service import ChatSession

Event = list[Any]  # [type, args, view | None]


class MemberChat(ChatSession, kw_only=True):
    """A group chat as one member's scripts see it: the group's chat file, lock and numbering, the
    member's card and env.  Rounds are the group's: a beat asked for here is refused."""

    group: GroupSession

    def variables(self) -> ChatVariables:
        return self.group.variables()

    def play(self, action: str, text: str = "", **_: Any) -> Any:
        raise BadInput("群聊里脚本不能发起回合（/trigger、生成回复）：回合由群聊页面发起")

    def impersonate(self, **_: Any) -> Any:
        raise BadInput("群聊里脚本不能代写（/impersonate）")


def _avatar_of(group: GroupSession, card: str) -> str:
    for avatar, member in group.scene.members.items():
        if member.card.folder == card:
            return avatar
    raise BadInput(f"卡「{card}」不是群聊「{group.char_name}」的成员：它的脚本不能改这个群聊")


def member_chat(group: GroupSession, card: str) -> MemberChat:
    """The group chat seen as member *card*'s (``BadInput`` when *card* is not a member)."""
    env = group.envs[_avatar_of(group, card)]
    return MemberChat(
        app=group.app, card=env.folder, chat=group.chat, settings=env.settings, resolved=group.resolved,
        mode=group.mode, env=env, lock_file=group.lock_file, checkpoint=group.checkpoint,
        start_mode=group.start_mode, story_memory=group.story_memory, _busy=group._busy,
        _tidying=group._tidying, _lock=group._lock, group=group,
    )  # fmt: skip


def _members(group: GroupSession) -> list[str]:
    """The members' card folders, in the group's order."""
    return [member.card.folder for member in group.scene.members.values()]


def _group_world(group: GroupSession, hosts: dict[str, PageScriptHost]) -> dict[str, Any]:
    """What the frames read: the chat (one member's host builds it; each reads the same file), with
    nobody the current character, and each member's own part (``members``: its card's variables and
    scripts), which the page lays over the rest for that member's frames."""
    if not hosts:
        return {}
    first = next(iter(hosts.values()))
    world = first.world()
    world["names"] = {"user": first.user_name, "char": ""}
    world["character_id"] = None
    world["character"] = {"variables": {}, "scripts": []}
    world["members"] = {card: {"character": host.world()["character"]} for card, host in hosts.items()}
    return world


def _hosts(group: GroupSession, cards: list[str]) -> dict[str, PageScriptHost]:
    return {card: PageScriptHost(member_chat(group, card)) for card in cards}


def group_page_scripts(group: GroupSession) -> dict[str, Any]:
    """What the group page runs: ``{"allowed", "count", "scripts": [{"card", "id", "name", "code",
    "buttons"}], "world", "opening", "members": [{"card", "name", "allowed", "count"}]}`` — every
    member's enabled scripts whose card's scripts the user allowed; ``allowed`` is true when one
    member's are; how many scripts each card has and its answer are its ``members`` row's (the page
    names the members whose scripts wait), so the chat's own ``count`` is 0."""
    scripts: list[dict[str, Any]] = []
    members: list[dict[str, Any]] = []
    running: list[str] = []
    for card in _members(group):
        found = page_scripts(member_chat(group, card))
        members.append({"card": card, "name": group.envs[_avatar_of(group, card)].char_name,
                        "allowed": found["allowed"], "count": found["count"]})  # fmt: skip
        if found["scripts"]:
            running.append(card)
            scripts += [{**script, "card": card} for script in found["scripts"]]
    world = _group_world(group, _hosts(group, running))
    return {"allowed": bool(running) or None, "count": 0, "scripts": scripts, "world": world,
            "opening": [], "members": members}  # fmt: skip


def group_page_world(group: GroupSession) -> dict[str, Any]:
    """The data the frames read again, after a round or an edit."""
    return _group_world(group, _hosts(group, _running(group)))


def _running(group: GroupSession) -> list[str]:
    """The members whose scripts run (the user allowed them)."""
    return [card for card in _members(group) if scripts_allowance(member_chat(group, card).card) is True]


def run_group_calls(group: GroupSession, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's calls in order, each ``{"card", "script", "name", "args"}``: a run of calls of one
    card runs on the group chat as that member's (:func:`run_calls`: the script must be one its card
    runs); a call of a card that is not a member is refused.  ``{"answers", "events", "world"}``."""
    answers: list[dict[str, Any]] = []
    events: list[Any] = []
    index = 0
    while index < len(calls):
        card = str(calls[index].get("card") or "")
        end = index
        while end < len(calls) and str(calls[end].get("card") or "") == card:
            end += 1
        chunk = calls[index:end]
        try:
            chat = member_chat(group, card)
        except BadInput as error:
            answers += [{"error": error.message} for _ in chunk]
        else:
            done = run_calls(chat, chunk)
            answers += done["answers"]
            events += done["events"]
        index = end
    return {"answers": answers, "events": events, "world": group_page_world(group)}


# -- the events of a round ----------------------------------------------------------------------------


def _round_requests(path: Path, replies: list[str]) -> list[tuple[list[Any], list[Any]]]:
    """Each reply's request (its messages, the world-info hits) from the round's record: the round's
    beat requests in order, one per speaker."""
    for record in reversed(beat_log.load(path, counted=False)):
        if not replies or replies[-1] not in record.entries:
            continue
        out = []
        for ledger in record.rounds:
            if isinstance(ledger, dict) and ledger.get("purpose", "beat") == "beat":
                rows = ledger.get("messages") or []
                sent = [{"role": row.get("role"), "content": row.get("content")} for row in rows]
                out.append((sent, list(ledger.get("lore") or [])))
        return out[-len(replies) :] if len(out) >= len(replies) else out
    return []


def _round_replies(chat: list[dict[str, Any]], action: str) -> list[int]:
    """The indices of the round's replies: after the last user message (a send or regenerate), or
    the last reply alone (a swipe, a continue)."""
    if not chat or chat[-1].get("is_user"):
        return []
    if action in ("swipe", "continue"):
        return [len(chat) - 1]
    start = len(chat)
    while start > 0 and not chat[start - 1].get("is_user"):
        start -= 1
    return list(range(start, len(chat)))


def round_events(group: GroupSession, action: str) -> list[Event]:
    """SillyTavern's events of the round *action* just played (see the module's docstring); each
    speaker's carry ``speaker`` in their view: who the current character is then."""
    cards = {avatar: member.card.folder for avatar, member in group.scene.members.items()}
    first = next(iter(cards.values()))
    host = PageScriptHost(member_chat(group, first))
    chat = host.state.chat
    gen_type = "normal" if action in ("send", "regenerate") else action
    replies = _round_replies(chat, action)
    events: list[Event] = []
    start = replies[0] if replies else len(chat)
    if action == "send" and start > 0 and chat[start - 1].get("is_user"):
        sent = {"length": start, "last": None}
        events += [["message_sent", [start - 1], sent], ["user_message_rendered", [start - 1], sent]]
    if action == "swipe" and replies:  # the page's swipe arrow: SillyTavern's swipe, then the round
        last = replies[-1]
        events.append(["message_swiped", [last], {"length": last + 1, "last": swiping(chat[last], received=False)}])
    kind = "regenerate" if action == "regenerate" else gen_type
    events.append(["group_wrapper_started", [{"selected_group": group.group.folder, "type": kind}], None])
    rows = group.messages()
    entries = _entry_ids(host, rows)
    requests = _round_requests(group.chat.path, [entries[i] for i in replies if entries[i]])
    for number, index in enumerate(replies):
        entry = entries[index]
        avatar = message_avatar(group.chat.tree.get(entry).message) if entry else ""
        card = cards.get(avatar, first)
        speaker_host = host if card == first else PageScriptHost(member_chat(group, card))
        messages, hits = requests[number] if number < len(requests) else ([], [])
        events += _speaker_events(speaker_host, index, gen_type, messages, hits, swiped=action == "swipe")
    events.append(["group_wrapper_finished", [{"selected_group": group.group.folder, "type": kind}], None])
    return events


def _entry_ids(host: PageScriptHost, rows: list[Any]) -> list[str]:
    """Each SillyTavern line's entry id ("" for one not written)."""
    out = []
    for number in host.chat_host._ids():
        at = int(number)
        out.append(str(rows[at].entry_id or "") if 0 <= at < len(rows) else "")
    return out


def _speaker_events(
    host: PageScriptHost, index: int, gen_type: str, messages: list[Any], hits: list[Any], *, swiped: bool
) -> list[Event]:
    """One speaker's generation, the chat as it stood then (the replies after it not written; a
    swiped reply with its new swipe still empty)."""
    chat = host.state.chat
    speaker = {"name": str(chat[index].get("name") or host.char_name), "id": host.character_id}
    before: dict[str, Any] = {"length": index, "last": None, "speaker": speaker}
    if swiped:
        before = {"length": index + 1, "last": swiping(chat[index], received=False), "speaker": speaker}
    events: list[Event] = [["group_member_drafted", [host.character_id], before]]
    events += started_events(gen_type, before, dry_run=False)
    events += generation_events(host, gen_type, messages, hits, before)
    shown = swiping(chat[index], received=True) if swiped else undrawn(copy.deepcopy(chat[index]))
    received = {"length": index + 1, "last": shown, "speaker": speaker}
    drawn = {"length": index + 1, "last": None, "speaker": speaker}
    events += [["message_received", [index, gen_type], received],
               ["character_message_rendered", [index, gen_type], drawn],
               ["generation_ended", [index + 1], drawn]]  # fmt: skip
    return events


def group_action_events(group: GroupSession, action: str) -> dict[str, Any]:
    """``{"world", "events"}``: the group chat's data after *action* (a round of ``BEATS``, or a
    change: ``edit``, ``delete``…) and SillyTavern's events of it."""
    members = _members(group)
    if not members:  # every member's card gone: no script runs
        return {"world": {}, "events": []}
    settle(member_chat(group, members[0]))  # the round's record is written as it lets the chat go
    if action in BEATS:
        events = round_events(group, action)
    else:
        world = group_page_world(group)
        return {"world": world, "events": change_events(action, len(world.get("chat") or []) - 1)}
    return {"world": group_page_world(group), "events": events}


__all__ = ["MemberChat", "group_action_events", "group_page_scripts", "group_page_world", "member_chat",
           "round_events", "run_group_calls"]  # fmt: skip
