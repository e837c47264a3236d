"""Chat operations as plans over the tree: regenerate, swipe, edit, delete, branch (pure).

A :class:`Plan` says where the leaf goes first and which new entries follow (their ids come from the
caller's ``new_id``).  The store applies it: it writes each entry (or, when there are none, a leaf
record) and adds it to the tree.  Nothing is ever removed: an edit or a delete is a new branch that
copies what came after, so every older version stays reachable in ``/tree``.

Message numbers (``N`` in ``/edit N``) index :meth:`SessionTree.messages` — every message entry on the
active path, the greeting being 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from peargarden.errors import BadInput

from .entries import Entry
from .tree import SessionTree

NewId = Callable[[], str]


@dataclass
class Plan:
    start_leaf: str | None
    entries: list[Entry] = field(default_factory=list)


def message_at(tree: SessionTree, index: int) -> Entry:
    messages = tree.messages()
    if not 0 <= index < len(messages):
        raise BadInput(f"没有第 {index} 条消息（当前分支共 {len(messages)} 条，从 0 数起）")
    return messages[index]


def last_user(tree: SessionTree) -> Entry | None:
    for entry in reversed(tree.path()):
        if entry.type == "message" and entry.role == "user":
            return entry
    return None


def reply_head(tree: SessionTree) -> Entry | None:
    """The first assistant entry of the latest beat (the one swipes are siblings of)."""
    path = tree.path()
    anchor = last_user(tree)
    start = 0 if anchor is None else path.index(anchor) + 1
    for entry in path[start:]:
        if entry.type == "message" and entry.role == "assistant":
            return entry
    return None


def plan_regenerate(tree: SessionTree) -> Plan:
    """The leaf goes back to the last user message: the next reply is a sibling of the current one."""
    anchor = last_user(tree)
    if anchor is None:
        raise BadInput("还没有可以重新生成的回复")
    return Plan(anchor.id)


def swipe_position(tree: SessionTree) -> tuple[int, int]:
    """(1-based position, count) of the current reply among its siblings; (0, 0) without a reply."""
    head = reply_head(tree)
    if head is None:
        return (0, 0)
    kin = tree.siblings(head.id)
    return (kin.index(head) + 1, len(kin))


def plan_swipe(tree: SessionTree, step: int) -> Plan | None:
    """Move to the previous (-1) / next (+1) reply; ``None`` when past the last one (generate anew)."""
    head = reply_head(tree)
    if head is None:
        raise BadInput("没有可以切换的回复")
    kin = tree.siblings(head.id)
    target = kin.index(head) + step
    if target >= len(kin):
        return None
    if target < 0:
        raise BadInput("已经是第一条回复")
    return Plan(tree.deepest_leaf(kin[target].id))


def plan_branch(tree: SessionTree, index: int) -> Plan:
    """The leaf goes to message *index*: the next message forks there."""
    return Plan(message_at(tree, index).id)


def _copy_after(tree: SessionTree, after: Entry, parent: str | None, new_id: NewId, timestamp: str) -> list[Entry]:
    path = tree.path()
    out: list[Entry] = []
    for entry in path[path.index(after) + 1 :]:
        if entry.type == "label":
            continue
        copy = Entry(new_id(), parent, entry.type, timestamp, entry.body)
        out.append(copy)
        parent = copy.id
    return out


def plan_edit(tree: SessionTree, index: int, content: str, new_id: NewId, timestamp: str) -> Plan:
    """A sibling of message *index* with new content, followed by copies of what came after it."""
    target = message_at(tree, index)
    message = dict(target.message)
    message["content"] = content
    edited = Entry(new_id(), target.parent_id, "message", timestamp, {**target.body, "message": message})
    return Plan(target.parent_id, [edited, *_copy_after(tree, target, edited.id, new_id, timestamp)])


def plan_delete(tree: SessionTree, index: int, new_id: NewId, timestamp: str) -> Plan:
    """A branch without message *index*: what came after it is copied onto its parent."""
    target = message_at(tree, index)
    return Plan(target.parent_id, _copy_after(tree, target, target.parent_id, new_id, timestamp))
