"""Values that go into and come out of the SillyTavern 1.12.6 world-info engine.

Everything here is a plain frozen dataclass.  The engine never reads files, clocks or randomness:
the caller builds these values (usually from SillyTavern JSON with :func:`entry_from_st`) and passes
functions for token counting, macros, regex transforms and random numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import msgspec

from ._js import js_to_string
from ._settings import flag, number

# A JSON value as it came from a SillyTavern file.  Kept loose on purpose: the engine must treat
# missing or oddly typed fields exactly as SillyTavern's JavaScript would.
JSONValue = Any


class Position(IntEnum):
    """``entry.position``: where an activated entry's text goes."""

    BEFORE = 0  # before character definitions (worldInfoBefore)
    AFTER = 1  # after character definitions (worldInfoAfter)
    AN_TOP = 2  # top of the Author's Note
    AN_BOTTOM = 3  # bottom of the Author's Note
    AT_DEPTH = 4  # in the chat at ``depth`` with ``role``
    EM_TOP = 5  # before the example messages
    EM_BOTTOM = 6  # after the example messages
    OUTLET = 7  # 1.18: kept under ``outletName``, read by the ``{{outlet::name}}`` macro


class SelectiveLogic(IntEnum):
    """``entry.selectiveLogic``: how secondary keys combine with a primary hit."""

    AND_ANY = 0
    NOT_ALL = 1
    NOT_ANY = 2
    AND_ALL = 3


class Strategy(IntEnum):
    """``world_info_character_strategy``: how global and character books are merged."""

    EVENLY = 0
    CHARACTER_FIRST = 1
    GLOBAL_FIRST = 2


@dataclass(frozen=True, slots=True)
class WorldInfoEntry:
    """One lorebook entry, tagged with the book (``world``) it came from.

    ``raw`` is the entry object exactly as stored in the book file (key order preserved); the engine
    reads every field from it with JavaScript semantics (missing field = ``undefined``, no editor
    defaults), because SillyTavern's scanner does not fill in defaults either.  Build one with
    :func:`peargarden.worldinfo.entry_from_st`.  Treat ``raw`` as read-only: the engine caches
    what it derives from it (parsed decorators, key matchers) in ``cache``.
    """

    world: str
    raw: Mapping[str, JSONValue]
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def uid(self) -> JSONValue:
        return self.raw.get("uid")

    @property
    def key(self) -> str:
        """The timed-effects key ``"<world>.<uid>"`` (as JavaScript prints the uid)."""
        return f"{self.world}.{js_to_string(self.uid)}"


class Lorebook(msgspec.Struct, frozen=True):
    """A named book: its entries in SillyTavern's iteration order (numeric uids ascending)."""

    name: str
    entries: tuple[WorldInfoEntry, ...]


class ScanMessage(msgspec.Struct, frozen=True):
    """One chat message as the scan sees it: speaker name and text (after prompt-time regex).

    Pass the core chat oldest first, hidden and system-notice messages already removed.
    """

    name: str
    text: str


class WorldInfoSettings(msgspec.Struct, frozen=True):
    """``world_info_settings`` from SillyTavern's settings.json (code defaults of 1.12.6)."""

    depth: int = 2
    budget_percent: float = 25
    budget_cap: int = 0
    include_names: bool = True
    recursive: bool = False
    case_sensitive: bool = False
    match_whole_words: bool = False
    min_activations: int = 0
    min_activations_depth_max: int = 0
    max_recursion_steps: int = 0
    use_group_scoring: bool = False
    overflow_alert: bool = False
    character_strategy: Strategy = Strategy.CHARACTER_FIRST

    @classmethod
    def from_st(cls, data: Mapping[str, JSONValue]) -> WorldInfoSettings:
        """Read the ``world_info_*`` keys of a SillyTavern settings object, or of its
        ``world_info_settings`` (missing ⇒ code default).  Values SillyTavern would reject on load
        are reset the same way it does (budget > 100 ⇒ 25)."""
        found = data.get("world_info_settings", data)
        source: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        budget = number(source, "world_info_budget", 25)
        if budget > 100:
            budget = 25
        strategy = int(number(source, "world_info_character_strategy", 1))
        if strategy not in (0, 1, 2):
            strategy = 0  # SillyTavern falls back to "evenly" for unknown strategies
        return cls(
            depth=int(number(source, "world_info_depth", 2)),
            budget_percent=budget,
            budget_cap=int(number(source, "world_info_budget_cap", 0)),
            include_names=flag(source, "world_info_include_names", True),
            recursive=flag(source, "world_info_recursive", False),
            case_sensitive=flag(source, "world_info_case_sensitive", False),
            match_whole_words=flag(source, "world_info_match_whole_words", False),
            min_activations=int(number(source, "world_info_min_activations", 0)),
            min_activations_depth_max=int(number(source, "world_info_min_activations_depth_max", 0)),
            max_recursion_steps=int(number(source, "world_info_max_recursion_steps", 0)),
            use_group_scoring=flag(source, "world_info_use_group_scoring", False),
            overflow_alert=flag(source, "world_info_overflow_alert", False),
            character_strategy=Strategy(strategy),
        )


class CharacterContext(msgspec.Struct, frozen=True):
    """The active character, for entries with a ``characterFilter``."""

    avatar: str  # the card's avatar file name, e.g. "Lin Yue.png" (compared without the extension)
    tags: tuple[str, ...] | None = None  # tag ids; None = the character has no tag map entry


class ExampleInjection(msgspec.Struct, frozen=True):
    """An example-message entry: ``position`` is ``"before"`` (EMTop) or ``"after"`` (EMBottom)."""

    position: str
    content: str


class DepthInjection(msgspec.Struct, frozen=True):
    """A group of @depth entries with the same depth and role, in SillyTavern's list order.

    ``content`` is the entries joined with ``\\n`` — the value SillyTavern writes into the
    extension-prompt table under ``table_key`` (``customDepthWI-<depth>-<role>``).  ``depth`` is the
    first entry's own ``depth`` field (``None`` when the entry has none, as in SillyTavern).
    """

    depth: int | None
    role: int
    entries: tuple[str, ...]

    @property
    def content(self) -> str:
        return "\n".join(self.entries)

    @property
    def table_key(self) -> str:
        return f"customDepthWI-{js_to_string(self.depth)}-{self.role}"


class ActivatedEntry(msgspec.Struct, frozen=True):
    """An entry that made it into the prompt, with its final text (macros + transform applied)."""

    entry: WorldInfoEntry
    content: str  # after macros; before the WORLD_INFO transform
    placed: str  # what was placed (after the transform); '' means it was dropped as empty
    position: int | None
    loop: int  # 1-based scan loop that activated it


class WorldInfoResult(msgspec.Struct, frozen=True):
    """Everything one scan produces."""

    wi_before: str = ""
    wi_after: str = ""
    an_top: tuple[str, ...] = ()
    an_bottom: tuple[str, ...] = ()
    examples: tuple[ExampleInjection, ...] = ()
    depth: tuple[DepthInjection, ...] = ()
    outlets: Mapping[str, tuple[str, ...]] = msgspec.field(default_factory=dict)  # 1.18 outlet name → texts
    activated: tuple[ActivatedEntry, ...] = ()
    timed_world_info: Mapping[str, JSONValue] = msgspec.field(default_factory=dict)
    budget: int = 0
    overflowed: bool = False
    warnings: tuple[str, ...] = ()
