"""Preset declaration: compile a SillyTavern preset, label each piece, route it into the card's files.

Pure: :func:`compile_preset` (SillyTavern order → pieces + a report per block), :func:`label_prompt`
and :func:`parse_labels` (the side model's call, read leniently), :func:`route` / :func:`merge_section`
(pieces → ``（预设）`` entries).  The files, the cache and the side-model call are
:mod:`peargarden.modes.stage.preset`.
"""

from .compile import STATUS_TEXT, BlockReport, Compiled, Piece, compile_preset
from .label import Labels, label_prompt, parse_labels
from .route import APPEND_TITLE, Routed, is_preset_entry, merge_section, route, strip_preset_entries, user_entry_names
from .stations import DEFAULT_STATION, STATIONS, Station, StationInfo, is_station

__all__ = [
    "APPEND_TITLE",
    "DEFAULT_STATION",
    "STATIONS",
    "STATUS_TEXT",
    "BlockReport",
    "Compiled",
    "Labels",
    "Piece",
    "Routed",
    "Station",
    "StationInfo",
    "compile_preset",
    "is_preset_entry",
    "is_station",
    "label_prompt",
    "merge_section",
    "parse_labels",
    "route",
    "strip_preset_entries",
    "user_entry_names",
]
