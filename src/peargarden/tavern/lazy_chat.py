"""The chat as the assembly sees it, computed only where it is looked at.

ST applies prompt-time regex to every chat message and converts all of them to Chat Completion
messages on every generation, but only the newest few are ever read: the world-info scan window
and what fits the budget.  :class:`LazyChat` gives the same values on demand (newest first, index
= depth from the end) and caches them, so a 10,000-message chat costs what its visible end costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

T = TypeVar("T")


class LazyList(Sequence[T]):
    """A read-only sequence whose items are built by ``make(index)`` the first time they are read."""

    def __init__(self, length: int, make: Callable[[int], T]) -> None:
        self._length = length
        self._make = make
        self._items: dict[int, T] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        item = self._items.get(index)
        if item is None:
            item = self._items[index] = self._make(index)
        return item

    def __iter__(self) -> Iterator[T]:
        for i in range(self._length):
            yield self[i]


class HeadTail(Sequence[T]):
    """``head`` (a short, already materialised list) followed by ``tail[offset:]`` read lazily."""

    def __init__(self, head: list[T], tail: Sequence[T], offset: int) -> None:
        self._head = head
        self._tail = tail
        self._offset = offset

    def __len__(self) -> int:
        return len(self._head) + len(self._tail) - self._offset

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if index < len(self._head):
            return self._head[index]
        return self._tail[index - len(self._head) + self._offset]

    def __iter__(self) -> Iterator[T]:
        yield from self._head
        for i in range(self._offset, len(self._tail)):
            yield self._tail[i]


ChatPair = tuple[dict[str, Any], str]  # (ST message, its text after prompt-time regex)
