"""The scene-notes ledger (场记): the story's factual baseline, and how a side-model patch changes it.

A ledger holds the in-story time and place, the people on stage (affinity toward the user, status,
notes, where they are), the inventory, free-form flags and the open plot threads, plus the roster:
every person, item and plot thread seen in this run with the in-story time it first appeared.

Patch semantics (spec §9.4): ``time``/``location`` replace; ``characters`` merge per field (``null``
deletes a person); ``inventory`` and ``plot_threads`` are full replacement lists; ``flags`` merge
(``null`` deletes a flag).  Affinity stays in −100..100 and moves at most :data:`AFFINITY_STEP` per
beat, because the keeper is told to move it in small steps and a model sometimes jumps anyway.
Names from the patch are matched to known names ignoring case and spaces, so 「林 晚」 and 「林晚」
stay one person.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

__all__ = [
    "AFFINITY_MAX",
    "AFFINITY_STEP",
    "ROSTER_CAPS",
    "Character",
    "Ledger",
    "PatchResult",
    "apply_patch",
]

AFFINITY_MAX = 100
AFFINITY_STEP = 10
# Roster caps (characters / items / plot threads) and the first-seen time kept per name.
ROSTER_CAPS = {"characters": 100, "items": 100, "events": 60}
FIRST_SEEN_MAX = 30
# Characters of one free-text field the ledger keeps (a runaway model must not grow it forever).
FIELD_MAX = 300

_KNOWN_KEYS = frozenset({"time", "location", "characters", "inventory", "flags", "plot_threads"})
_CHARACTER_FIELDS = ("status", "notes", "at")


class Character(msgspec.Struct):
    affinity: int | None = None
    status: str = ""
    notes: str = ""
    at: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.affinity is not None:
            out["affinity"] = self.affinity
        for name in _CHARACTER_FIELDS:
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out


class Ledger(msgspec.Struct):
    time: str = ""
    location: str = ""
    characters: dict[str, Character] = msgspec.field(default_factory=dict)
    inventory: list[str] = msgspec.field(default_factory=list)
    flags: dict[str, str] = msgspec.field(default_factory=dict)
    plot_threads: list[str] = msgspec.field(default_factory=list)
    # section ("characters" / "items" / "events") → name → first-seen in-story time
    roster: dict[str, dict[str, str]] = msgspec.field(
        default_factory=lambda: {"characters": {}, "items": {}, "events": {}}
    )

    @property
    def empty(self) -> bool:
        return not (self.time or self.location or self.characters or self.inventory or self.flags or self.plot_threads)

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "location": self.location,
            "characters": {name: person.to_json() for name, person in self.characters.items()},
            "inventory": list(self.inventory),
            "flags": dict(self.flags),
            "plot_threads": list(self.plot_threads),
            "roster": {section: dict(names) for section, names in self.roster.items()},
        }

    @classmethod
    def from_json(cls, value: Any) -> Ledger:
        """A ledger from stored JSON; anything malformed is dropped rather than failing the beat."""
        ledger = cls()
        if not isinstance(value, Mapping):
            return ledger
        ledger.time = _text(value.get("time"))
        ledger.location = _text(value.get("location"))
        people = value.get("characters")
        if isinstance(people, Mapping):
            for name, raw in people.items():
                if isinstance(name, str) and name.strip() and isinstance(raw, Mapping):
                    affinity = raw.get("affinity")
                    number = isinstance(affinity, int | float) and not isinstance(affinity, bool)
                    ledger.characters[name.strip()] = Character(
                        _clamp(affinity) if number and affinity is not None else None,
                        _text(raw.get("status")),
                        _text(raw.get("notes")),
                        _text(raw.get("at")),
                    )
        ledger.inventory = [item for item in _strings(value.get("inventory"))]
        flags = value.get("flags")
        if isinstance(flags, Mapping):
            ledger.flags = {str(k): _flag_text(v) for k, v in flags.items() if v is not None}
        ledger.plot_threads = _strings(value.get("plot_threads"))
        roster = value.get("roster")
        if isinstance(roster, Mapping):
            for section in ledger.roster:
                names = roster.get(section)
                if isinstance(names, Mapping):
                    ledger.roster[section] = {str(k): _text(v) for k, v in names.items() if str(k).strip()}
        return ledger

    def copy(self) -> Ledger:
        return Ledger.from_json(self.to_json())


class PatchResult(msgspec.Struct):
    ledger: Ledger
    changed: bool
    warnings: list[str] = msgspec.field(default_factory=list)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return (value if isinstance(value, str) else str(value)).strip()[:FIELD_MAX]


def _flag_text(value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    return _text(value)


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item.strip()[:FIELD_MAX] for item in value if isinstance(item, str) and item.strip()]


def _clamp(value: float) -> int:
    return max(-AFFINITY_MAX, min(AFFINITY_MAX, round(value)))


def _fold(name: str) -> str:
    return "".join(name.split()).lower()


def _canonical(name: str, known: Mapping[str, Any]) -> str:
    folded = _fold(name)
    for existing in known:
        if _fold(existing) == folded:
            return existing
    return name.strip()


def _affinity(raw: Any, current: int | None) -> int | None:
    """The new affinity: a number is the new value, ``"+5"``/``"-3"`` a step; at most ±STEP per beat."""
    step: float | None = None
    target: float | None = None
    if isinstance(raw, bool):
        return current
    if isinstance(raw, int | float):
        target = float(raw)
    elif isinstance(raw, str):
        text = raw.strip()
        try:
            number = float(text)
        except ValueError:
            return current
        if text[:1] in "+-" and current is not None:
            step = number
        else:
            target = number
    else:
        return current
    base = current if current is not None else 0
    if step is not None:
        target = base + step
    assert target is not None
    if current is not None:
        target = max(current - AFFINITY_STEP, min(current + AFFINITY_STEP, target))
    return _clamp(target)


def _register(ledger: Ledger, section: str, name: str) -> None:
    names = ledger.roster.setdefault(section, {})
    if name in names or len(names) >= ROSTER_CAPS[section]:
        return
    names[name] = ledger.time[:FIRST_SEEN_MAX]


def _list_patch(key: str, value: Any, warnings: list[str]) -> list[str] | None:
    if not isinstance(value, list):
        warnings.append(f"场记补丁的 {key} 不是列表，已忽略")
        return None
    kept = _strings(value)
    dropped = len(value) - len([v for v in value if isinstance(v, str)])
    if dropped:
        warnings.append(f"场记补丁的 {key} 里有 {dropped} 项不是文字，已丢弃")
    return kept


def apply_patch(ledger: Ledger, patch: Mapping[str, Any]) -> PatchResult:
    """*ledger* with *patch* applied (a new ledger; the old one is not changed)."""
    out = ledger.copy()
    warnings: list[str] = []
    for key in patch:
        if key not in _KNOWN_KEYS:
            warnings.append(f"场记补丁里有未知的字段 {key}，已忽略")
    if "time" in patch and patch["time"] is not None:
        out.time = _text(patch["time"])
    if "location" in patch and patch["location"] is not None:
        out.location = _text(patch["location"])
    people = patch.get("characters")
    if isinstance(people, Mapping):
        for raw_name, fields in people.items():
            if not isinstance(raw_name, str) or not raw_name.strip():
                continue
            # Known spellings: people on stage, then anyone the roster has seen.
            name = _canonical(raw_name, {**out.roster.get("characters", {}), **out.characters})
            if fields is None:
                out.characters.pop(name, None)
                continue
            if not isinstance(fields, Mapping):
                warnings.append(f"场记补丁里「{name}」的内容不是对象，已忽略")
                continue
            person = out.characters.get(name) or Character()
            if "affinity" in fields:
                person.affinity = _affinity(fields["affinity"], person.affinity)
            for field_name in _CHARACTER_FIELDS:
                if field_name in fields and fields[field_name] is not None:
                    setattr(person, field_name, _text(fields[field_name]))
            out.characters[name] = person
            _register(out, "characters", name)
    elif people is not None:
        warnings.append("场记补丁的 characters 不是对象，已忽略")
    if "inventory" in patch:
        items = _list_patch("inventory", patch["inventory"], warnings)
        if items is not None:
            out.inventory = items
            for item in items:
                _register(out, "items", item)
    if "plot_threads" in patch:
        threads = _list_patch("plot_threads", patch["plot_threads"], warnings)
        if threads is not None:
            out.plot_threads = threads
            for thread in threads:
                _register(out, "events", thread)
    flags = patch.get("flags")
    if isinstance(flags, Mapping):
        for key, value in flags.items():
            if value is None:
                out.flags.pop(str(key), None)
            else:
                out.flags[str(key)] = _flag_text(value)
    elif flags is not None:
        warnings.append("场记补丁的 flags 不是对象，已忽略")
    return PatchResult(out, out.to_json() != ledger.to_json(), warnings)
