"""Chat operations as plans over the tree: regenerate, swipe, edit, delete, hide, branch (pure).

A :class:`Plan` says where the leaf goes first, which new entries follow (their ids come from the
caller's ``new_id``) and which messages change in place.  The store applies it: it writes each entry
(or, when there are none, a leaf record) and adds it to the tree, then an amend record per change.
Nothing is ever removed: a delete is a new branch that copies what came after, so every older version
stays reachable in ``/tree``; an edit, a hide (SillyTavern's ``is_system`` flag) and a continue change
the message itself — the swipe shown, as SillyTavern's edit does — its earlier versions kept as its
revisions (:meth:`SessionTree.revisions`), from which :func:`plan_undo` takes back an edit or a continue.

Message numbers (``N`` in ``/edit N``) index :meth:`SessionTree.messages` — every message entry on the
active path, the greeting being 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from peargarden.errors import BadInput

from .entries import HIDDEN_TAG, Entry, message_entry
from .tree import SessionTree
from .variables import bound_message

NewId = Callable[[], str]


class Plan(msgspec.Struct):
    start_leaf: str | None
    entries: list[Entry] = msgspec.field(default_factory=list)
    # Messages changed in place, after the entries: (entry id, the message fields to set; None drops one).
    amends: list[tuple[str, dict[str, Any]]] = msgspec.field(default_factory=list)


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
    # From the end back to the last user message: a long chat's path is not searched from its root.
    found: Entry | None = None
    for entry in reversed(path):
        if entry.type != "message":
            continue
        role = entry.role
        if role == "user":
            break
        if role == "assistant":
            found = entry
    return found


def plan_regenerate(tree: SessionTree) -> Plan:
    """The leaf goes back to where the current reply forked (the last user message, or state the
    branch recorded after it, such as the user message's variables): the next reply is a sibling
    of the current one."""
    anchor = last_user(tree)
    if anchor is None:
        raise BadInput("还没有可以重新生成的回复")
    head = reply_head(tree)
    if head is not None and head.parent_id is not None:
        return Plan(head.parent_id)
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


def _copied(entry: Entry, entry_id: str, parent: str | None, timestamp: str, moved: dict[str, str]) -> Entry:
    """A copy of *entry*; a custom entry naming a message copied before it names the copy (*moved*:
    old id → new id), so a message's variables follow it onto the new branch."""
    body = entry.body
    target = bound_message(entry)
    if target is not None and target in moved:
        body = {**body, "data": {**body["data"], "message": moved[target]}}
    moved[entry.id] = entry_id
    return Entry(entry_id, parent, entry.type, timestamp, body)


def _copy_after(
    tree: SessionTree,
    after: Entry,
    parent: str | None,
    new_id: NewId,
    timestamp: str,
    moved: dict[str, str] | None = None,
) -> list[Entry]:
    path = tree.path()
    moved = {} if moved is None else moved
    out: list[Entry] = []
    for entry in path[path.index(after) + 1 :]:
        if entry.type == "label":
            continue
        if bound_message(entry) == after.id and after.id not in moved:
            continue  # a note on a deleted message goes with it
        copy = _copied(entry, new_id(), parent, timestamp, moved)
        out.append(copy)
        parent = copy.id
    return out


def plan_edit(tree: SessionTree, index: int, content: str) -> Plan:
    """Message *index* with new content, changed in place (SillyTavern's edit: the swipe shown changes,
    no new version appears among its siblings); its text before stays as its latest revision, which
    :func:`plan_undo` brings back.  Nothing changes when the text is the same."""
    target = message_at(tree, index)
    if content == target.message.get("content"):
        return Plan(tree.leaf)
    return Plan(tree.leaf, amends=[(target.id, {"content": content})])


def plan_insert(tree: SessionTree, index: int | None, message: dict[str, Any], new_id: NewId, timestamp: str) -> Plan:
    """*message* written into the chat without a reply: at the end (*index* None or past the last),
    else before message *index* — a new branch where it stands there and what followed is copied after
    it (SillyTavern's ``/send at=``, ``/sys at=`` …)."""
    messages = tree.messages()
    if index is None or index >= len(messages):
        leaf = tree.leaf
        return Plan(leaf, [message_entry(new_id(), leaf, timestamp, message)])
    target = message_at(tree, max(index, 0))
    inserted = message_entry(new_id(), target.parent_id, timestamp, message)
    path = tree.path()
    out = [inserted]
    parent = inserted.id
    moved: dict[str, str] = {}
    for entry in path[path.index(target) :]:
        if entry.type == "label":
            continue
        copy = _copied(entry, new_id(), parent, timestamp, moved)
        out.append(copy)
        parent = copy.id
    return Plan(target.parent_id, out)


def plan_delete(tree: SessionTree, index: int, new_id: NewId, timestamp: str) -> Plan:
    """A branch without message *index*: what came after it is copied onto its parent."""
    target = message_at(tree, index)
    return Plan(target.parent_id, _copy_after(tree, target, target.parent_id, new_id, timestamp))


def plan_delete_many(tree: SessionTree, indices: list[int], new_id: NewId, timestamp: str) -> Plan:
    """A branch without the messages at *indices* (SillyTavern's "delete messages", several at once):
    what came after the first of them is copied onto its parent, leaving those out.  A reply's tool
    results go with it (left alone they would answer a call no message made)."""
    messages = tree.messages()
    chosen = sorted(set(indices))
    if not chosen:
        raise BadInput("没有选中要删除的消息")
    targets = {message_at(tree, index).id for index in chosen}
    calls = {str(call.get("id")) for entry in messages if entry.id in targets
             for call in entry.message.get("tool_calls") or [] if isinstance(call, dict)}  # fmt: skip
    targets |= {entry.id for entry in messages if entry.role == "tool" and entry.message.get("tool_call_id") in calls}
    path = tree.path()
    start = next(position for position, entry in enumerate(path) if entry.id in targets)
    parent = path[start].parent_id
    out: list[Entry] = []
    moved: dict[str, str] = {}
    for entry in path[start:]:
        if entry.type == "label" or entry.id in targets or bound_message(entry) in targets:
            continue  # a deleted message's notes go with it
        copy = _copied(entry, new_id(), parent, timestamp, moved)
        out.append(copy)
        parent = copy.id
    return Plan(path[start].parent_id, out)


def plan_hide(tree: SessionTree, first: int, last: int, hidden: bool) -> Plan | None:
    """Messages *first* … *last* hidden from the model (SillyTavern's ``/hide``) or shown to it again
    (``/unhide``): the tag ``"hidden"`` (ST's ``is_system``) set or cleared on each message in place;
    the chat stays one line, with no copies in the tree.

    Only the user's and the character's messages count: a tool result goes with the reply that
    called it (hidden alone, the call would reach the model without its answer).  ``None`` when
    nothing changes."""
    messages = tree.messages()
    if not 0 <= first <= last < len(messages):
        raise BadInput(f"没有第 {first}–{last} 条消息（当前分支共 {len(messages)} 条，从 0 数起）")
    targets: list[Entry] = []
    calls: set[str] = set()
    for entry in messages[first : last + 1]:
        role = entry.role
        if role not in ("user", "assistant") or entry.hidden == hidden:
            continue
        targets.append(entry)
        calls.update(str(call.get("id")) for call in entry.message.get("tool_calls") or [] if isinstance(call, dict))
    chosen = {entry.id for entry in targets}
    for entry in messages[first:]:
        answers = entry.role == "tool" and entry.message.get("tool_call_id") in calls
        if answers and entry.id not in chosen and entry.hidden != hidden:
            targets.append(entry)
            chosen.add(entry.id)
    if not targets:
        return None
    amends: list[tuple[str, dict[str, Any]]] = []
    for entry in targets:
        tags = [tag for tag in entry.message.get("tags") or [] if tag != HIDDEN_TAG]
        kept = [*tags, HIDDEN_TAG] if hidden else tags
        amends.append((entry.id, {"tags": kept or None}))
    return Plan(tree.leaf, amends=amends)


def plan_continue(tree: SessionTree, reply: Entry, message: dict[str, Any]) -> Plan:
    """The last reply *reply* extended in place by a continue (SillyTavern's): *message* is the
    continued reply as the loop recorded it (its text the old text and the new); the old text stays
    as the reply's last revision, which :func:`plan_undo` brings back."""
    changes: dict[str, Any] = {"content": str(message.get("content") or "")}
    reasoning = "".join(str(part) for part in (reply.message.get("reasoning"), message.get("reasoning")) if part)
    if reasoning:
        changes["reasoning"] = reasoning
    for key in ("tool_calls", "usage", "model", "stop_reason"):
        if key in message:
            changes[key] = message[key]
    return Plan(tree.leaf, amends=[(reply.id, changes)])


def undo_target(tree: SessionTree, entry: Entry) -> dict[str, Any] | None:
    """The message *entry* was before its latest change of text in place (an edit or a continue) that
    no undo has taken back, or ``None`` when there is none.

    Read off its revisions as a stack: each change of text pushes the text it made; a text already on
    the stack (what an undo writes back) pops down to it.  So undo after undo walks back through the
    edits and continues, as far as the text the message was written with, and never redoes one; a
    hide changes no text and only refreshes the top."""
    stack: list[dict[str, Any]] = []
    for state in [*tree.revisions(entry.id), entry.message]:
        text = str(state.get("content") or "")
        same = next((i for i, kept in enumerate(stack) if str(kept.get("content") or "") == text), None)
        if same is None:
            stack.append(state)
        else:
            del stack[same + 1 :]
            stack[same] = state
    return stack[-2] if len(stack) > 1 else None


def plan_undo(tree: SessionTree, index: int) -> Plan:
    """Message *index* back to its text before its latest edit or continue (a second undo goes back past
    the one before, as far as the text the message was written with: :func:`undo_target`)."""
    entry = message_at(tree, index)
    older = undo_target(tree, entry)
    if older is None:
        raise BadInput(f"第 {index} 条消息没有可以撤销的编辑或续写")
    return Plan(tree.leaf, amends=[(entry.id, {"content": older.get("content"), "reasoning": older.get("reasoning")})])
