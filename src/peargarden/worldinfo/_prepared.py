"""Per-scan working copies of entries (SillyTavern clones entries for every scan and mutates them)."""

from __future__ import annotations

from typing import Any

from . import _js
from ._plan import EntryPlan, plan_for
from .types import WorldInfoEntry


class Prepared:
    """One entry during one scan: its cached plan, current content (macros applied), lazy hash."""

    __slots__ = ("content", "entry", "index", "plan", "raw", "world")

    def __init__(self, entry: WorldInfoEntry, index: int) -> None:
        self.entry = entry
        self.raw = entry.raw
        self.world = entry.world
        self.index = index
        self.plan: EntryPlan = plan_for(entry)
        self.content = self.plan.content

    def get(self, name: str) -> Any:
        return self.raw.get(name, _js.UNDEFINED)

    @property
    def decorators(self) -> tuple[str, ...]:
        return self.plan.decorators

    @property
    def timed_key(self) -> str:
        return f"{self.world}.{_js.to_string(_js.get(self.raw, 'uid'))}"

    @property
    def hash(self) -> int:
        """``getStringHash(JSON.stringify(entry))`` of the entry as ST holds it before the scan."""
        cached = self.entry.cache.get("hash")
        if cached is None:
            shaped: dict[str, Any] = {"uid": _js.get(self.raw, "uid"), "world": self.world}
            for key, value in self.raw.items():
                if key != "uid":
                    shaped[key] = value
            shaped["decorators"] = list(self.plan.decorators)
            shaped["content"] = self.plan.content
            cached = _js.string_hash(_js.stringify(shaped))
            self.entry.cache["hash"] = cached
        return int(cached)
