"""Chat operations as plans over the tree: regenerate, swipe, edit, delete, hide, branch (pure).

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
    return plan_swipe_of(tree, head, step)


def plan_swipe_of(tree: SessionTree, reply: Entry, step: int) -> Plan | None:
    """Move from *reply* to its previous (-1) / next (+1) sibling; ``None`` when past the last one."""
    kin = tree.siblings(reply.id)
    target = kin.index(reply) + step
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


HIDDEN_TAG = "hidden"


def is_hidden(entry: Entry) -> bool:
    """Whether a message entry is hidden from the model (SillyTavern's ``is_system``)."""
    tags = entry.message.get("tags")
    return isinstance(tags, list) and HIDDEN_TAG in tags


def plan_hide(tree: SessionTree, first: int, last: int, hidden: bool, new_id: NewId, timestamp: str) -> Plan | None:
    """Messages *first* … *last* hidden from the model (SillyTavern's ``/hide``) or shown to it again
    (``/unhide``): a branch from the first message whose state changes, those messages with the tag
    ``"hidden"`` set or cleared, what came after copied (like an edit, so the old branch stays).

    Only the user's and the character's messages count: a tool result goes with the reply that
    called it (hidden alone, the call would reach the model without its answer).  ``None`` when
    nothing changes."""
    messages = tree.messages()
    if not 0 <= first <= last < len(messages):
        raise BadInput(f"没有第 {first}–{last} 条消息（当前分支共 {len(messages)} 条，从 0 数起）")
    targets: set[str] = set()
    calls: set[str] = set()
    for entry in messages[first : last + 1]:
        role = entry.role
        if role not in ("user", "assistant") or is_hidden(entry) == hidden:
            continue
        targets.add(entry.id)
        calls.update(str(call.get("id")) for call in entry.message.get("tool_calls") or [] if isinstance(call, dict))
    for entry in messages[first:]:
        if entry.role == "tool" and entry.message.get("tool_call_id") in calls:
            targets.add(entry.id)
    if not targets:
        return None
    path = tree.path()
    start = next(index for index, entry in enumerate(path) if entry.id in targets)
    parent = path[start].parent_id
    out: list[Entry] = []
    for entry in path[start:]:
        if entry.type == "label":
            continue
        body = entry.body
        if entry.id in targets:
            message = dict(entry.message)
            tags = [tag for tag in message.get("tags") or [] if tag != HIDDEN_TAG]
            message["tags"] = [*tags, HIDDEN_TAG] if hidden else tags
            if not message["tags"]:
                del message["tags"]
            body = {**body, "message": message}
        copy = Entry(new_id(), parent, entry.type, timestamp, body)
        out.append(copy)
        parent = copy.id
    return Plan(path[start].parent_id, out)
