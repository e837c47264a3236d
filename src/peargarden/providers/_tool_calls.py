"""Accumulate streamed tool-call fragments into complete calls.

OpenAI-style streams send each call as fragments keyed by ``index``: the first carries ``id`` and
``function.name``, later ones append to ``function.arguments``.  A few servers omit ``index`` and
send whole calls; those are told apart by ``id``.  Arguments are kept as raw text — truncated or
invalid JSON is passed on untouched for the agent loop to repair or reject.
"""

from __future__ import annotations

import msgspec

from .base import ToolCall


class _Partial(msgspec.Struct):
    id: str = ""
    name: str = ""
    arguments: list[str] = msgspec.field(default_factory=list)


class ToolCallAccumulator:
    def __init__(self) -> None:
        self._calls: dict[int, _Partial] = {}
        self._last_index: int | None = None

    def __bool__(self) -> bool:
        return bool(self._calls)

    def add(self, index: int | None, id: str | None, name: str | None, arguments: str | None) -> None:
        key = self._resolve_index(index, id)
        partial = self._calls.setdefault(key, _Partial())
        self._last_index = key
        if id and not partial.id:
            partial.id = id
        if name:
            # Some servers resend the name on every fragment; others split it (rare).
            partial.name = name if not partial.name or partial.name == name else partial.name + name
        if arguments:
            partial.arguments.append(arguments)

    def finish(self) -> list[ToolCall]:
        """All calls in index order; the accumulator is empty afterwards."""
        calls = [
            ToolCall(id=p.id or f"call_{index}", name=p.name, arguments="".join(p.arguments))
            for index, p in sorted(self._calls.items())
        ]
        self._calls.clear()
        self._last_index = None
        return calls

    def _resolve_index(self, index: int | None, id: str | None) -> int:
        if index is not None:
            return index
        if id:
            for key, partial in self._calls.items():
                if partial.id == id:
                    return key
            return max(self._calls, default=-1) + 1
        if self._last_index is not None:
            return self._last_index
        return 0
