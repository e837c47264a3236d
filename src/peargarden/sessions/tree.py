"""The session tree in memory: entries by id, children by parent, the active leaf.

Pure: ids and timestamps come from the caller.  Every :meth:`SessionTree.add` makes the new entry the
leaf; :meth:`set_leaf` moves the leaf without adding anything (the next entry forks there).  The path
of the active leaf is cached and extended in place when an entry is added under the leaf, so a long
chat does not pay a root walk per message.

:meth:`amend` changes a message in place (SillyTavern's continue extends the current swipe; a hidden
message carries a flag): the entry is replaced by a new one with the same id and place, and the
message it had is kept among its :meth:`revisions` (the session file keeps an ``amend`` record).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping
from itertools import islice
from typing import Any

import msgspec

from peargarden.errors import BadInput, ConflictError, NotFound

from .entries import Entry


class TreeRow(msgspec.Struct, frozen=True):
    """One line of a drawn tree: depth, the entry, whether it is on the active path, sibling position."""

    depth: int
    entry: Entry
    on_path: bool
    sibling_index: int
    sibling_count: int
    more: bool = False  # some of its descendants were left out (a folded side branch, the limit)
    parent: str | None = None  # the row it hangs from: its entry's parent, or the nearest one drawn


class SessionTree:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        # Child ids by parent id, in creation order; None: not made yet (a loaded file's tree makes
        # it on first use, from the entries in file order: opening a chat needs only the path).
        self._children_cache: dict[str | None, list[str]] | None = {}
        self._leaf: str | None = None
        # None: not known since the last fork or leaf move; computed on the next read.
        self._path_cache: list[Entry] | None = []
        # The entries of one type on the active path (see _on_path()), per type: the path list they
        # were read from, how much of it was read, and what was found there.
        self._on_path_cache: dict[str, tuple[list[Entry], int, list[Entry]]] = {}
        # Leaves the active leaf moved away from in this session, the latest last: going back to a
        # version of a message (a swipe, another branch) returns to where its story was left.
        self._left: list[str] = []
        # The messages amended entries had before, oldest first, and the ids amended, in order (a
        # memo of converted messages forgets those: see context.ContextMemo).
        self._revisions: dict[str, list[dict[str, Any]]] = {}
        self.amended: list[str] = []

    # -- reading -----------------------------------------------------------------------------------

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def ids(self) -> KeysView[str]:
        """The entry ids (a live view: a loader tests membership without a call per line)."""
        return self._entries.keys()

    def __len__(self) -> int:
        return len(self._entries)

    def ids_since(self, count: int) -> list[str]:
        """The ids of the entries added after the first *count*, oldest first (what a beat wrote,
        read without walking the whole tree)."""
        newest = list(islice(reversed(self._entries), max(0, len(self._entries) - count)))
        return newest[::-1]

    def __iter__(self) -> Iterator[Entry]:
        return iter(list(self._entries.values()))

    @property
    def leaf(self) -> str | None:
        return self._leaf

    def get(self, entry_id: str) -> Entry:
        try:
            return self._entries[entry_id]
        except KeyError:
            raise NotFound(f"会话里没有条目 {entry_id}") from None

    def children(self, entry_id: str | None) -> list[Entry]:
        return [self._entries[child] for child in self._children().get(entry_id, [])]

    def siblings(self, entry_id: str) -> list[Entry]:
        """Entries sharing *entry_id*'s parent and its kind (same type, same role), in creation order."""
        entry = self.get(entry_id)
        return [
            other for other in self.children(entry.parent_id) if other.type == entry.type and other.role == entry.role
        ]

    def path(self) -> list[Entry]:
        """Entries from the root down to the active leaf, inclusive."""
        return list(self._active_path())

    def path_to(self, leaf: str | None) -> list[Entry]:
        """Entries from the root down to *leaf*, inclusive."""
        if leaf == self._leaf:
            return list(self._active_path())
        return self._walk(leaf)

    def _active_path(self) -> list[Entry]:
        if self._path_cache is None:
            self._path_cache = self._walk(self._leaf)
        return self._path_cache

    def _walk(self, leaf: str | None) -> list[Entry]:
        out: list[Entry] = []
        current = leaf
        seen: set[str] = set()
        while current is not None:
            if current in seen:  # a cycle can only come from a hand-edited file; stop rather than hang
                break
            seen.add(current)
            entry = self._entries.get(current)
            if entry is None:
                break
            out.append(entry)
            current = entry.parent_id
        out.reverse()
        return out

    def _children(self) -> dict[str | None, list[str]]:
        children = self._children_cache
        while children is None:
            # From a copy of the entries, and again if one was added meanwhile (by another thread,
            # whose add saw no lists to extend): no entry is ever left out.
            entries = list(self._entries.values())
            children = {}
            _add_children(children, entries)
            self._children_cache = children
            if len(self._entries) != len(entries):
                children = self._children_cache = None
        return children

    def messages(self) -> list[Entry]:
        """The ``message`` entries on the active path, root first."""
        return list(self._on_path("message"))

    def customs(self, custom_type: str | None = None) -> list[Entry]:
        """``custom`` entries on the active path (optionally of one type), oldest first."""
        found = self._on_path("custom")
        if custom_type is None:
            return list(found)
        return [entry for entry in found if entry.body.get("customType") == custom_type]

    def _on_path(self, entry_type: str) -> list[Entry]:
        """The active path's entries of *entry_type* (a list the caller must not change).

        Asked for several times a beat (the messages by the mode, the story bookkeeping, the
        after-beat checks; the customs on every beat), so the path is not read again each time: the
        cached path list is only ever extended in place while the leaf grows, and replaced by a new
        list on any other move (a fork, a leaf move, a reload), so what was found in the part of that
        very list read last time still holds, and only what it grew by is read."""
        path = self._active_path()
        end = len(path)
        cached = self._on_path_cache.get(entry_type)
        if cached is not None and cached[0] is path and cached[1] <= end:
            found = cached[2]
            if cached[1] < end:
                found = found + [entry for entry in path[cached[1] : end] if entry.type == entry_type]
        else:
            found = [entry for entry in path if entry.type == entry_type]
        self._on_path_cache[entry_type] = (path, end, found)
        return found

    def labels(self) -> dict[str, str]:
        """Label per target entry over the whole tree; the last label entry for a target wins."""
        out: dict[str, str] = {}
        for entry in self._entries.values():
            if entry.type != "label":
                continue
            target = entry.body.get("targetId")
            label = entry.body.get("label")
            if not isinstance(target, str):
                continue
            if isinstance(label, str) and label:
                out[target] = label
            else:
                out.pop(target, None)
        return out

    def rows(
        self,
        root: str | None = None,
        *,
        fold: int | None = None,
        limit: int | None = None,
        shown: Callable[[Entry], bool] | None = None,
    ) -> list[TreeRow]:
        """The whole tree depth-first (children in creation order), for ``/tree`` and ``sessions show``.

        *root*: only that entry (at depth 0) and what hangs below it.  *fold*: a branch off the
        active path shows at most that many rows; *limit*: at most that many rows in all.  A row
        whose descendants were left out says so (``more``): a page draws the part of a long chat's
        tree near what it shows.  *shown*: only the entries it accepts are rows, each hanging from
        its nearest accepted ancestor (``TreeRow.parent``), siblings counted among those; a *root*
        it does not accept starts the drawing at its nearest accepted ancestor."""
        on_path = {entry.id for entry in self._active_path()}
        rows: list[TreeRow] = []
        children = self._children()

        def kids_of(entry_id: str | None) -> list[str]:
            if shown is None:
                return children.get(entry_id, [])
            return self._shown_children(children, shown, entry_id)

        if shown is not None and root is not None:
            root = self.shown_ancestor(root, shown)
        # (id, drawn parent, depth, sibling position, sibling count, rows its side branch may still show)
        stack: list[tuple[str, str | None, int, int, int, int]]
        if root is None:
            tops = kids_of(None)
            stack = [(child, None, 0, i, len(tops), -1) for i, child in reversed(list(enumerate(tops)))]
        else:
            above = self.get(root).parent_id
            if shown is not None and above is not None:
                above = self.shown_ancestor(above, shown)
            kin = kids_of(above)
            stack = [(root, above, 0, kin.index(root), len(kin), -1)]
        while stack:
            entry_id, parent, depth, position, count, budget = stack.pop()
            if limit is not None and len(rows) >= limit:
                if rows:
                    rows[-1] = msgspec.structs.replace(rows[-1], more=True)
                break
            entry = self._entries[entry_id]
            here = entry_id in on_path
            if fold is not None and not here and budget < 0:
                budget = fold  # a side branch starts here
            kids = kids_of(entry_id)
            cut = bool(kids) and budget == 1
            rows.append(TreeRow(depth, entry, here, position, count, cut, parent))
            if cut:
                continue
            below = budget - 1 if budget > 0 else budget
            stack.extend((child, entry_id, depth + 1, i, len(kids), below)
                         for i, child in reversed(list(enumerate(kids))))  # fmt: skip
        return rows

    def _shown_children(
        self, children: Mapping[str | None, list[str]], shown: Callable[[Entry], bool], entry_id: str | None
    ) -> list[str]:
        """The entries *shown* accepts that hang from *entry_id* through entries it does not, in order."""
        out: list[str] = []
        waiting = list(reversed(children.get(entry_id, [])))
        while waiting:
            kid = waiting.pop()
            if shown(self._entries[kid]):
                out.append(kid)
            else:
                waiting.extend(reversed(children.get(kid, [])))
        return out

    def shown_ancestor(self, entry_id: str | None, shown: Callable[[Entry], bool]) -> str | None:
        """*entry_id* itself when *shown* accepts it, else its nearest ancestor that it accepts."""
        while entry_id is not None:
            entry = self._entries[entry_id]
            if shown(entry):
                return entry_id
            entry_id = entry.parent_id
        return None

    # -- changing ----------------------------------------------------------------------------------

    def add(self, entry: Entry) -> Entry:
        """Add *entry* (its parent must exist) and make it the active leaf."""
        if entry.id in self._entries:
            raise ConflictError(f"会话条目 id 重复：{entry.id}")
        if entry.parent_id is not None and entry.parent_id not in self._entries:
            raise NotFound(f"会话里没有父条目 {entry.parent_id}")
        self._entries[entry.id] = entry
        children = self._children_cache
        if children is not None:
            # A leaf has no list of children (readers use .get(id, [])): no empty list per entry.
            kids = children.get(entry.parent_id)
            if kids is None:
                children[entry.parent_id] = [entry.id]
            else:
                kids.append(entry.id)
        if entry.parent_id == self._leaf and self._path_cache is not None:
            self._path_cache.append(entry)
        else:
            self._path_cache = None
        self._leaf = entry.id
        return entry

    def add_loaded(self, entries: dict[str, Entry], leaf: str | None, *, path: list[Entry] | None = None) -> None:
        """Add entries a loader has checked, by id in file order (new ids, each parent already in
        the tree or earlier in *entries*), then make *leaf* (in the tree by then, or None) the
        active leaf.

        The same tree as :meth:`add` for each entry and :meth:`set_leaf` at the end, without the
        checks and the path bookkeeping per entry: opening a long chat adds tens of thousands.
        *path*, for an empty tree, is the path to *leaf* the loader already knows (a session index
        keeps it): the new list is kept as the active path instead of walking it again.
        """
        store = self._entries
        children = self._children_cache
        if not store:
            self._children_cache = None  # made when first asked for
            if path is not None:
                store.update(entries)
                self._leaf = leaf
                self._path_cache = path
                return
        elif children is not None:
            _add_children(children, entries.values())
        store.update(entries)
        before = self._leaf
        if leaf == before:
            return
        self._leaf = leaf
        cached = self._path_cache
        if cached is None or leaf is None:
            self._path_cache = None
            return
        # Appended lines usually only grow the active path: extend the cached path rather than
        # walk it again from the root (a refresh after another process's beat).
        tail: list[Entry] = []
        current: str | None = leaf
        for _ in range(len(entries)):
            if current == before or current is None:
                break
            entry = store[current]
            tail.append(entry)
            current = entry.parent_id
        if entries and current == before and (before is not None or not cached):
            tail.reverse()
            cached.extend(tail)
        else:
            self._path_cache = _rejoined(cached, leaf, store)

    def amend(self, entry_id: str, changes: Mapping[str, Any]) -> Entry:
        """Change fields of message *entry_id* in place (a ``None`` value removes the field); the
        message it had goes to its :meth:`revisions`.  The entry keeps its id, parent and place."""
        old = self.get(entry_id)
        if old.type != "message":
            raise BadInput(f"条目 {entry_id} 不是消息，不能改写")
        message = dict(old.message)
        for key, value in changes.items():
            if value is None:
                message.pop(key, None)
            else:
                message[key] = value
        new = Entry(old.id, old.parent_id, old.type, old.timestamp, {**old.body, "message": message})
        self._entries[entry_id] = new  # same key: its place in creation order is kept
        self._revisions.setdefault(entry_id, []).append(old.message)
        self.amended.append(entry_id)
        path = self._path_cache
        if path is not None:  # the cached path holds entry objects: the new one takes the old one's place
            for position in range(len(path) - 1, -1, -1):
                if path[position] is old:
                    path[position] = new
                    break
        self._on_path_cache.pop("message", None)  # it held the old entry
        return new

    def revisions(self, entry_id: str) -> list[dict[str, Any]]:
        """The messages *entry_id* had before each of its amendments, oldest first."""
        return list(self._revisions.get(entry_id, []))

    def set_leaf(self, entry_id: str | None) -> None:
        """Move the active leaf; ``None`` means the next entry starts a new root."""
        if entry_id is not None and entry_id not in self._entries:
            raise NotFound(f"会话里没有条目 {entry_id}")
        if entry_id == self._leaf:
            return
        if self._leaf is not None:
            self._left = [*self._left[-(_LEFT_KEPT - 1) :], self._leaf]
        self._leaf = entry_id
        self._path_cache = None

    def _below(self, leaf: str, entry_id: str) -> bool:
        """Whether *entry_id* is *leaf* or one of its ancestors (a leaf no longer a leaf: no)."""
        if leaf not in self._entries or self._children().get(leaf):
            return False
        current: str | None = leaf
        for _ in range(len(self._entries)):
            if current is None:
                return False
            if current == entry_id:
                return True
            current = self._entries[current].parent_id
        return False

    def deepest_leaf(self, entry_id: str) -> str:
        """Where the story below *entry_id* continues (a swipe, a branch picked again): the leaf its
        branch was last left at, when the leaf moved away from it in this session; else the newest
        child followed down to a leaf."""
        for leaf in reversed(self._left):
            if self._below(leaf, entry_id):
                return leaf
        current = entry_id
        while True:
            kids = self._children().get(current, [])
            if not kids:
                return current
            current = kids[-1]


# How many of the leaves left behind deepest_leaf looks at (each a walk towards the root).
_LEFT_KEPT = 16

# How far from its end a new leaf's branch may leave the cached path and still be joined to it.
_NEAR = 64


def _rejoined(path: list[Entry], leaf: str, store: dict[str, Entry]) -> list[Entry] | None:
    """The path to *leaf* as a new list, made from *path* (root first) when *leaf*'s branch leaves it
    among its last entries (a swipe, a branch back, a few new entries on a sibling); None otherwise.
    Opening a chat with swipes ends on such a leaf move: no walk of the whole path.  A new list,
    never *path* changed: a cached path list is only ever extended in place while the leaf grows
    (readers keep what they found in it)."""
    window = len(path) - min(len(path), _NEAR)
    near = {entry.id: position for position, entry in enumerate(path[window:], window)}
    tail: list[Entry] = []
    current: str | None = leaf
    while current is not None and current not in near and len(tail) < _NEAR:
        entry = store.get(current)
        if entry is None:
            return None
        tail.append(entry)
        current = entry.parent_id
    if current is None and window == 0:  # the new leaf's own root: the path is its branch alone
        kept = 0
    elif current is not None and current in near:
        kept = near[current] + 1
    else:
        return None
    tail.reverse()
    return path[:kept] + tail


def _add_children(children: dict[str | None, list[str]], entries: Iterable[Entry]) -> None:
    for entry in entries:
        parent = entry.parent_id
        kids = children.get(parent)
        if kids is None:  # a leaf has no list (readers use .get(id, [])): no empty list per entry
            children[parent] = [entry.id]
        else:
            kids.append(entry.id)
