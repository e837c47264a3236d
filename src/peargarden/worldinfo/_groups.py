"""Inclusion groups (SillyTavern ``filterByInclusionGroups``), quirks included."""

from __future__ import annotations

import re
from collections.abc import Callable

from . import _js
from ._prepared import Prepared
from ._timed import TimedEffects

DEFAULT_WEIGHT = 100
_GROUP_SPLIT = re.compile(r",\s*")  # JS \s here is Unicode-aware, like Python's default \s


def _weight(entry: Prepared) -> float:
    return _js.to_number(_js.coalesce(entry.get("groupWeight"), DEFAULT_WEIGHT))


def filter_by_inclusion_groups(
    new_entries: list[Prepared],
    all_activated: dict[int, Prepared],
    timed: TimedEffects,
    score: Callable[[Prepared], int],
    use_group_scoring: bool,
    random: Callable[[], float],
) -> None:
    """Remove group losers from ``new_entries`` in place."""
    grouped: dict[str, list[Prepared]] = {}
    for item in new_entries:
        group = item.get("group")
        if not _js.truthy(group):
            continue
        for label in _GROUP_SPLIT.split(_js.to_string(group)):
            if label:
                grouped.setdefault(label, []).append(item)
    if not grouped:
        return
    order = _js.object_keys(list(grouped))

    def remove(entry: Prepared) -> None:
        # ``splice(indexOf(entry), 1)``: an entry already removed gives index -1, which removes the
        # LAST candidate instead (a SillyTavern quirk for entries in several groups).
        try:
            index = new_entries.index(entry)
        except ValueError:
            index = -1
        if new_entries:
            del new_entries[index]

    def remove_all_but(group: list[Prepared], chosen: Prepared | None) -> None:
        for entry in group:
            if entry is not chosen:
                remove(entry)

    # Timed effects: a sticky member wins the group; cooldown/delay members go.
    has_sticky: dict[str, bool] = {}
    for key in order:
        group = grouped[key]
        has_sticky[key] = False
        sticky = [e for e in group if timed.is_active("sticky", e)]
        if sticky:
            for entry in group:
                if not any(entry is s for s in sticky):
                    remove(entry)
            has_sticky[key] = True
        for kind in ("cooldown", "delay"):
            for entry in [e for e in group if timed.is_active(kind, e)]:
                remove(entry)

    # Scoring: members that use it and score below the group's best are removed.
    for key in order:
        group = grouped[key]
        if not use_group_scoring and not any(_js.truthy(e.get("useGroupScoring")) for e in group):
            continue
        if has_sticky[key]:
            continue
        scores = [score(e) for e in group]
        best = max(scores)
        i = 0
        while i < len(group):
            scored = _js.truthy(_js.coalesce(group[i].get("useGroupScoring"), use_group_scoring))
            if scored and scores[i] < best:
                remove(group[i])
                del group[i]
                del scores[i]
                continue
            i += 1

    for key in order:
        group = grouped[key]
        if has_sticky[key]:
            continue
        if any(_js.get(e.raw, "group") == key for e in all_activated.values()):
            remove_all_but(group, None)  # the group already has a winner from an earlier loop
            continue
        if len(group) <= 1:
            continue
        prios = [e for e in group if _js.truthy(e.get("groupOverride"))]
        if prios:
            prios.sort(key=lambda e: -_js.to_number(e.get("order")))
            remove_all_but(group, prios[0])
            continue
        total = 0.0
        for entry in group:
            total += _weight(entry)
        roll = random() * total
        current = 0.0
        winner: Prepared | None = None
        for entry in group:
            current += _weight(entry)
            if roll <= current:
                winner = entry
                break
        if winner is None:
            continue
        remove_all_but(group, winner)
