"""Sticky / cooldown / delay (SillyTavern ``WorldInfoTimedEffects``), on a private metadata copy."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _js
from ._prepared import Prepared

EFFECT_TYPES = ("sticky", "cooldown")


def ensure_metadata(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A deep copy of ``chat_metadata.timedWorldInfo`` repaired the way ST repairs it."""
    data: dict[str, Any] = copy.deepcopy(dict(value)) if isinstance(value, Mapping) else {}
    for kind in EFFECT_TYPES:
        effects = data.get(kind)
        if not isinstance(effects, dict):
            data[kind] = {}
            continue
        for key in list(effects):
            if not isinstance(effects[key], dict):  # falsy or not an object
                del effects[key]
    return data


class TimedEffects:
    def __init__(self, metadata: dict[str, Any], chat_length: int, entries: Sequence[Prepared]) -> None:
        self.metadata = metadata
        self.chat_length = chat_length
        self.entries = entries
        self.active: dict[str, set[int]] = {"sticky": set(), "cooldown": set(), "delay": set()}
        self._by_hash: dict[str, Prepared] | None = None

    def _find(self, effect_hash: Any) -> Prepared | None:
        if self._by_hash is None:
            table: dict[str, Prepared] = {}
            for entry in self.entries:
                table.setdefault(_js.to_string(entry.hash), entry)
            self._by_hash = table
        return self._by_hash.get(_js.to_string(effect_hash))

    def _effect(self, kind: str, entry: Prepared, protected: bool) -> dict[str, Any]:
        end = self.chat_length + _js.to_number(entry.get(kind))
        return {
            "hash": entry.hash,
            "start": self.chat_length,
            # JSON can carry Infinity (Python's json reads it): keep it as a float, never int() it.
            "end": int(end) if math.isfinite(end) and end == int(end) else end,
            "protected": protected,
        }

    def _check(self, kind: str, on_ended: Callable[[Prepared], None] | None) -> None:
        effects: dict[str, Any] = self.metadata[kind]
        for key in _js.object_keys(list(effects)):
            if key not in effects:
                continue
            value = effects[key]
            entry = self._find(value.get("hash"))
            if self.chat_length <= _js.to_number(_js.get(value, "start")) and not _js.truthy(
                _js.get(value, "protected")
            ):
                del effects[key]  # the chat did not advance (e.g. a swipe): drop it
                continue
            if entry is None:
                # Perhaps another character's book: keep it until its time is up.
                if self.chat_length >= _js.to_number(_js.get(value, "end")):
                    del effects[key]
                continue
            if not _js.truthy(entry.get(kind)):
                del effects[key]
                continue
            if self.chat_length >= _js.to_number(_js.get(value, "end")):
                del effects[key]
                if on_ended is not None:
                    on_ended(entry)
                continue
            self.active[kind].add(entry.hash)

    def _sticky_ended(self, entry: Prepared) -> None:
        # A sticky entry that ends starts its cooldown right away, protected from "chat not advanced".
        if not _js.truthy(entry.get("cooldown")):
            return
        self.metadata["cooldown"][entry.timed_key] = self._effect("cooldown", entry, True)
        self.active["cooldown"].add(entry.hash)

    def check(self) -> None:
        self._check("sticky", self._sticky_ended)
        self._check("cooldown", None)
        for entry in self.entries:
            delay = entry.get("delay")
            if _js.truthy(delay) and self.chat_length < _js.to_number(delay):
                self.active["delay"].add(entry.hash)

    def any_active(self) -> bool:
        return any(self.active.values())

    def is_active(self, kind: str, entry: Prepared) -> bool:
        hashes = self.active[kind]
        return bool(hashes) and entry.hash in hashes

    def record(self, activated: Sequence[Prepared]) -> None:
        for entry in activated:
            for kind in EFFECT_TYPES:
                if not _js.truthy(entry.get(kind)):
                    continue
                if not _js.truthy(self.metadata[kind].get(entry.timed_key)):
                    self.metadata[kind][entry.timed_key] = self._effect(kind, entry, False)
