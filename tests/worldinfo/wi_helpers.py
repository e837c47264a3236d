"""Helpers for the world-info tests: build entries and run a scan (imported as ``wi_helpers``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from peargarden.worldinfo import (
    Lorebook,
    ScanMessage,
    WorldInfoResult,
    WorldInfoSettings,
    check_world_info,
    entry_from_st,
    sort_entries,
)


def make_entry(uid: int, **fields: Any) -> dict[str, Any]:
    """An entry as SillyTavern's editor saves it, with overrides."""
    base: dict[str, Any] = {
        "uid": uid,
        "key": [],
        "keysecondary": [],
        "comment": "",
        "content": f"条目{uid}",
        "constant": False,
        "selective": True,
        "selectiveLogic": 0,
        "order": 100,
        "position": 0,
        "disable": False,
        "excludeRecursion": False,
        "preventRecursion": False,
        "delayUntilRecursion": 0,
        "probability": 100,
        "useProbability": True,
        "depth": 4,
        "group": "",
        "groupOverride": False,
        "groupWeight": 100,
        "scanDepth": None,
        "caseSensitive": None,
        "matchWholeWords": None,
        "useGroupScoring": None,
        "role": 0,
        "sticky": None,
        "cooldown": None,
        "delay": None,
    }
    base.update(fields)
    return base


def char_count(text: str) -> int:
    """A simple deterministic counter standing in for ``tiktoken + 6``: one token per character."""
    return len(text) + 6


def no_random() -> float:
    raise AssertionError("no random roll expected")


def scan(
    entries: Sequence[dict[str, Any]],
    messages: Sequence[tuple[str, str]],
    *,
    world: str = "听雨轩",
    settings: WorldInfoSettings | None = None,
    max_context: int = 3795,
    count_tokens: Callable[[str], int] = char_count,
    random: Callable[[], float] = no_random,
    **kwargs: Any,
) -> WorldInfoResult:
    """One scan over a single global book named ``world``."""
    book = Lorebook(world, tuple(entry_from_st(e, world) for e in entries))
    return check_world_info(
        sort_entries(global_books=[book]),
        [ScanMessage(name, text) for name, text in messages],
        settings or WorldInfoSettings(),
        max_context=max_context,
        count_tokens=count_tokens,
        random=random,
        **kwargs,
    )


def uids(result: WorldInfoResult) -> list[Any]:
    return sorted(a.entry.uid for a in result.activated)
