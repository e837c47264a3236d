"""Building the output lists (end of SillyTavern ``checkWorldInfo``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import _js
from ._prepared import Prepared
from .sources import sort_by_order
from .types import ActivatedEntry, DepthInjection, ExampleInjection, Position, WorldInfoEntry, WorldInfoResult


def _position(value: Any) -> int | None:
    # ``switch (entry.position)`` compares with ===: only real numbers select a position.
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        return None
    return int(value)


def _depth_value(value: Any) -> int | None:
    if _js.is_nullish(value) or isinstance(value, bool):
        return None
    number = _js.to_number(value)
    return int(number) if number == number and not math.isinf(number) else None


def _strict_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a) == float(b)
    if a is None or b is None or a is _js.UNDEFINED or b is _js.UNDEFINED:
        return a is b
    return type(a) is type(b) and bool(a == b)


def build_result(
    activated: Sequence[Prepared],
    loops: Sequence[int],
    transform: Callable[[str, WorldInfoEntry], str] | None,
    *,
    metadata: Mapping[str, Any],
    budget: int,
    overflowed: bool,
    warnings: Sequence[str],
) -> WorldInfoResult:
    before: list[str] = []
    after: list[str] = []
    an_top: list[str] = []
    an_bottom: list[str] = []
    examples: list[ExampleInjection] = []
    # Each group: [raw depth, raw role, entries]; ST compares with === against ``depth ?? 4``.
    depth_groups: list[tuple[Any, Any, list[str]]] = []
    outlets: dict[str, list[str]] = {}

    placed: dict[int, str] = {}
    by_entry = {id(p.entry): p for p in activated}
    # Highest order first; each text is put at the front, so lists end up ascending.
    for entry in sort_by_order(p.entry for p in activated):
        prepared = by_entry[id(entry)]
        content = transform(prepared.content, entry) if transform is not None else prepared.content
        placed[id(prepared)] = content
        if not content:
            continue
        position = _position(prepared.get("position"))
        if position == Position.BEFORE:
            before.insert(0, content)
        elif position == Position.AFTER:
            after.insert(0, content)
        elif position == Position.EM_TOP:
            examples.insert(0, ExampleInjection("before", content))
        elif position == Position.EM_BOTTOM:
            examples.insert(0, ExampleInjection("after", content))
        elif position == Position.AN_TOP:
            an_top.insert(0, content)
        elif position == Position.AN_BOTTOM:
            an_bottom.insert(0, content)
        elif position == Position.AT_DEPTH:
            raw_depth = prepared.get("depth")
            want_depth = _js.coalesce(raw_depth, 4)
            role = _js.coalesce(prepared.get("role"), 0)
            for group in depth_groups:
                if _strict_equal(group[0], want_depth) and _strict_equal(group[1], role):
                    group[2].insert(0, content)
                    break
            else:
                depth_groups.append((raw_depth, role, [content]))
        elif position == Position.OUTLET:
            name = prepared.get("outletName")
            if isinstance(name, str) and name:
                outlets.setdefault(name, []).append(content)  # ST pushes here (highest order first)

    depth = tuple(
        DepthInjection(depth=_depth_value(d), role=_depth_value(r) or 0, entries=tuple(items))
        for d, r, items in depth_groups
    )
    return WorldInfoResult(
        wi_before="\n".join(before),
        wi_after="\n".join(after),
        an_top=tuple(an_top),
        an_bottom=tuple(an_bottom),
        examples=tuple(examples),
        depth=depth,
        outlets={name: tuple(texts) for name, texts in outlets.items()},
        activated=tuple(
            ActivatedEntry(
                entry=p.entry,
                content=p.content,
                placed=placed.get(id(p), ""),
                position=_position(p.get("position")),
                loop=loop,
            )
            for p, loop in zip(activated, loops, strict=True)
        ),
        timed_world_info=metadata,
        budget=budget,
        overflowed=overflowed,
        warnings=tuple(warnings),
    )
