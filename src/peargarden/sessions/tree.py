"""The session tree in memory: entries by id, children by parent, the active leaf.

Pure: ids and timestamps come from the caller.  Every :meth:`SessionTree.add` makes the new entry the
leaf; :meth:`set_leaf` moves the leaf without adding anything (the next entry forks there).  The path
of the active leaf is cached and extended in place when an entry is added under the leaf, so a long
chat does not pay a root walk per message.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView
from dataclasses import dataclass
from itertools import islice

from peargarden.errors import ConflictError, NotFound

from .entries import Entry


@dataclass(frozen=True)
class TreeRow:
    """One line of a drawn tree: depth, the entry, whether it is on the active path, sibling position."""

    depth: int
    entry: Entry
    on_path: bool
    sibling_index: int
    sibling_count: int


class SessionTree:
    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        # Child ids by parent id, in creation order; None: not made yet (a loaded file's tree makes
        # it on first use, from the entries in file order: opening a chat needs only the path).
        self._children_cache: dict[str | None, list[str]] | None = {}
        self._leaf: str | None = None
        # None: not known since the last fork or leaf move; computed on the next read.
        self._path_cache: list[Entry] | None = []
        # The custom entries of the active path (see customs()): the path list they were read from,
        # how much of it was read, and what was found there.
        self._customs_cache: tuple[list[Entry], int, list[Entry]] | None = None

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
        return [entry for entry in self._active_path() if entry.type == "message"]

    def customs(self, custom_type: str | None = None) -> list[Entry]:
        """``custom`` entries on the active path (optionally of one type), oldest first.

        Asked for on every beat, so the path is not read again each time: the cached path list is
        only ever extended in place while the leaf grows, and replaced by a new list on any other
        move (a fork, a leaf move, a reload), so the customs found in the part of that very list
        read last time still hold, and only what it grew by is read.
        """
        path = self._active_path()
        end = len(path)
        cached = self._customs_cache
        if cached is not None and cached[0] is path and cached[1] <= end:
            found = cached[2] + [entry for entry in path[cached[1] : end] if entry.type == "custom"]
        else:
            found = [entry for entry in path[:end] if entry.type == "custom"]
        self._customs_cache = (path, end, found)
        if custom_type is None:
            return list(found)
        return [entry for entry in found if entry.body.get("customType") == custom_type]

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

    def rows(self) -> list[TreeRow]:
        """The whole tree depth-first (children in creation order), for ``/tree`` and ``sessions show``."""
        on_path = {entry.id for entry in self._active_path()}
        rows: list[TreeRow] = []
        children = self._children()
        roots = children.get(None, [])
        stack = [(child, 0, i, len(roots)) for i, child in reversed(list(enumerate(roots)))]
        while stack:
            entry_id, depth, position, count = stack.pop()
            entry = self._entries[entry_id]
            rows.append(TreeRow(depth, entry, entry_id in on_path, position, count))
            kids = children.get(entry_id, [])
            stack.extend((child, depth + 1, i, len(kids)) for i, child in reversed(list(enumerate(kids))))
        return rows

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

    def set_leaf(self, entry_id: str | None) -> None:
        """Move the active leaf; ``None`` means the next entry starts a new root."""
        if entry_id is not None and entry_id not in self._entries:
            raise NotFound(f"会话里没有条目 {entry_id}")
        if entry_id == self._leaf:
            return
        self._leaf = entry_id
        self._path_cache = None

    def deepest_leaf(self, entry_id: str) -> str:
        """Follow the newest child from *entry_id* down to a leaf (where a swipe's story continues)."""
        current = entry_id
        while True:
            kids = self._children().get(current, [])
            if not kids:
                return current
            current = kids[-1]


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
