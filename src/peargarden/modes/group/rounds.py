"""A group chat's branch as SillyTavern's chat array, and the group's plans over the session tree.

Pure: entries in, lines and plans out.  A group reply keeps the fields SillyTavern's group chat
stores under ``message["st"]`` (the line a message exports as: an imported message's whole line,
a new one's group fields — ``name``, ``send_date``, ``original_avatar``, ``force_avatar`` and
``extra.gen_id``), so who spoke and which round a reply belongs to read the same way for imported
and new messages, and an export writes them as SillyTavern does.

A round (one user message → several replies) is a chain on the branch: the user's message, then
each speaker's reply as the child of the one before.  Regenerate moves the leaf to where the round
started (the new round is a sibling of the old, which stays in the tree); swipe and continue act on
the branch's last reply, whose siblings are its swipes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from peargarden.errors import BadInput
from peargarden.formats.groups import avatar_thumbnail
from peargarden.sessions import SessionTree, ops
from peargarden.sessions.entries import Entry
from peargarden.tavern.group_turns import round_start


def st_fields(message: dict[str, Any]) -> dict[str, Any]:
    line = message.get("st")
    return line if isinstance(line, dict) else {}


def message_avatar(message: dict[str, Any]) -> str:
    """The member who wrote a group message (``original_avatar``), or ``""``."""
    value = st_fields(message).get("original_avatar")
    return value if isinstance(value, str) else ""


def message_round(message: dict[str, Any]) -> Any:
    """The round a group message belongs to (``extra.gen_id``), or ``None``."""
    extra = st_fields(message).get("extra")
    return extra.get("gen_id") if isinstance(extra, dict) else None


def group_fields(name: str, avatar: str, round_id: object, send_date: str) -> dict[str, Any]:
    """The ``st`` fields of a new reply by *avatar* in round *round_id*."""
    return {
        "name": name,
        "send_date": send_date,
        "original_avatar": avatar,
        "force_avatar": avatar_thumbnail(avatar),
        "extra": {"gen_id": round_id},
    }


def _line(entry: Entry, carried: dict[str, Any]) -> dict[str, Any]:
    message = entry.message
    role = entry.role
    line: dict[str, Any] = {
        "name": message.get("name") if role != "tool" else carried.get("name"),
        "is_user": role == "user",
        "is_system": entry.hidden,
        "mes": str(message.get("content") or ""),
        "extra": {},
    }
    avatar = message_avatar(message) if role == "assistant" else carried.get("original_avatar", "")
    if avatar:
        line["original_avatar"] = avatar
    round_id = message_round(message) if role == "assistant" else carried.get("gen_id")
    if round_id is not None:
        line["extra"]["gen_id"] = round_id
    return line


def branch_lines(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """One SillyTavern-shaped line per message entry of *entries* (the branch's messages, in
    order): a tool result counts as part of the reply that called it (same speaker, same round)."""
    lines: list[dict[str, Any]] = []
    carried: dict[str, Any] = {}
    for entry in entries:
        line = _line(entry, carried)
        if entry.role == "assistant":
            carried = {"name": line["name"], "original_avatar": line.get("original_avatar", ""),
                       "gen_id": line["extra"].get("gen_id")}  # fmt: skip
        elif entry.role == "user":
            carried = {}
        lines.append(line)
    return lines


def spoken_lines(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """The branch as SillyTavern's chat holds it (who speaks next is chosen over it): the user's
    messages and the replies that say something; tool rounds are no messages there."""
    return [
        line
        for entry, line in zip(entries, branch_lines(entries), strict=True)
        if entry.role == "user" or (entry.role == "assistant" and line["mes"].strip())
    ]


def plan_regenerate_round(tree: SessionTree) -> ops.Plan:
    """Where the leaf goes for Regenerate: before the last round's replies (SillyTavern deletes
    the trailing replies sharing the last one's round id); nothing moves when the branch ends
    with the user's message."""
    entries = tree.messages()
    start = round_start(branch_lines(entries))
    if start >= len(entries):
        return ops.Plan(tree.leaf)
    return ops.Plan(entries[start].parent_id)


def last_reply(tree: SessionTree) -> Entry:
    """The branch's last message, which must be a reply (swipe and continue act on it)."""
    entries = tree.messages()
    if not entries or entries[-1].role != "assistant":
        raise BadInput("最后一条不是回复，没有可以切换或续写的内容")
    return entries[-1]


def reply_swipes(tree: SessionTree) -> tuple[int, int]:
    """(1-based position, count) of the branch's last reply among its siblings; (0, 0) when the
    branch does not end with a reply."""
    entries = tree.messages()
    if not entries or entries[-1].role != "assistant":
        return (0, 0)
    kin = tree.siblings(entries[-1].id)
    return (kin.index(entries[-1]) + 1, len(kin))


def plan_swipe_reply(tree: SessionTree, step: int) -> ops.Plan | None:
    """The last reply's previous (-1) / next (+1) sibling; ``None`` past the last one (a new
    reply by the same member is generated)."""
    return ops.plan_swipe_of(tree, last_reply(tree), step)
