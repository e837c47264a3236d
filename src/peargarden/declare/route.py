"""Route labelled pieces into the card's prompt files as program-owned ``（预设）`` entries.

identity → card ``APPEND_SYSTEM.md`` under ``# 预设提示词（预设）``; writing → active ``AGENTS.md``
entries; thinking / draft / output / memory → disabled ``AGENTS.md`` entries; wrapper → nothing.
Re-routing first strips every ``（预设）`` entry, so the user's entries are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from peargarden.stage.entries import PRESET_SUFFIX, format_entry, parse_entries, strip_entries_where, unique_entry_name

from .compile import Piece
from .stations import Station

APPEND_TITLE = f"# 预设提示词{PRESET_SUFFIX}"
DISABLED_STATIONS: frozenset[str] = frozenset({"thinking", "draft", "output", "memory"})


class Routed(msgspec.Struct):
    append_markdown: str = ""
    agents_section: str = ""
    append_ids: list[str] = msgspec.field(default_factory=list)
    agents_ids: list[str] = msgspec.field(default_factory=list)
    disabled_ids: list[str] = msgspec.field(default_factory=list)
    wrapper_ids: list[str] = msgspec.field(default_factory=list)
    entry_names: dict[str, str] = msgspec.field(default_factory=dict)


def route(pieces: Sequence[Piece], stations: Mapping[str, Station], user_names: Sequence[str] = ()) -> Routed:
    routed = Routed()
    used = set(user_names)
    append_blocks: list[str] = []
    agents_blocks: list[str] = []
    for piece in pieces:
        station = stations.get(piece.id, "writing")
        if station == "wrapper":
            routed.wrapper_ids.append(piece.id)
            continue
        name = unique_entry_name(piece.name, PRESET_SUFFIX, used)
        used.add(name)
        routed.entry_names[piece.id] = name
        if station == "identity":
            append_blocks.append(format_entry(name, piece.text))
            routed.append_ids.append(piece.id)
        elif station in DISABLED_STATIONS:
            agents_blocks.append(format_entry(name, piece.text, enabled=False))
            routed.disabled_ids.append(piece.id)
        else:
            agents_blocks.append(format_entry(name, piece.text))
            routed.agents_ids.append(piece.id)
    if append_blocks:
        routed.append_markdown = APPEND_TITLE + "\n\n" + "\n".join(append_blocks)
    routed.agents_section = "\n".join(agents_blocks)
    return routed


def is_preset_entry(name: str) -> bool:
    return name.endswith(PRESET_SUFFIX)


def strip_preset_entries(text: str) -> str:
    return strip_entries_where(text, lambda entry: is_preset_entry(entry.name))


def merge_section(text: str, section: str) -> str:
    """*text* without its old ``（预设）`` entries, with *section* appended (when not empty)."""
    base = strip_preset_entries(text)
    if not section:
        return base
    head = base.rstrip()
    return f"{head}\n\n{section}" if head else section


def user_entry_names(text: str) -> list[str]:
    return [e.name for e in parse_entries(text) if e.name and not is_preset_entry(e.name)]
