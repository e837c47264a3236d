"""The activation loop: SillyTavern 1.12.6 ``checkWorldInfo`` as a pure function."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .types import (
    CharacterContext,
    JSONValue,
    ScanMessage,
    WorldInfoEntry,
    WorldInfoResult,
    WorldInfoSettings,
)

TokenCounter = Callable[[str], int]
Transform = Callable[[str, WorldInfoEntry], str]


def _identity(text: str) -> str:
    return text


def check_world_info(
    entries: Sequence[WorldInfoEntry],
    messages: Sequence[ScanMessage],
    settings: WorldInfoSettings,
    *,
    max_context: int,
    count_tokens: TokenCounter,
    random: Callable[[], float],
    macro: Callable[[str], str] = _identity,
    transform: Transform | None = None,
    inject_scan: Sequence[str] = (),
    timed_world_info: Mapping[str, JSONValue] | None = None,
    chat_length: int | None = None,
    dry_run: bool = False,
    character: CharacterContext | None = None,
) -> WorldInfoResult:
    """Run one world-info scan.  See the package docstring for every argument."""
    raise NotImplementedError
