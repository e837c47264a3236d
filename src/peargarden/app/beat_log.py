"""The web's record of a chat's last beats, kept beside the session file (``web-beats.json``).

For each of the last :data:`KEEP` beats: when it started, how long it took, which message entries it
wrote, the ledger of every request it sent (the prompt inspector's "exact request": slot, role,
tokens and text per message) and its warnings.  Kept on disk so that the inspector's "last beat",
the in-context marker and each message's generation time survive a server restart.  A damaged or
missing file is an empty log (it is a record, not the story).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from peargarden.workspace import atomic

FILE_NAME = "web-beats.json"
KEEP = 10


@dataclass
class BeatRecord:
    started: str
    seconds: float
    entries: list[str] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def log_path(session_file: Path) -> Path:
    return session_file.parent / FILE_NAME


def load(session_file: Path) -> list[BeatRecord]:
    try:
        raw = json.loads(log_path(session_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    beats = raw.get("beats") if isinstance(raw, dict) else None
    out: list[BeatRecord] = []
    for item in beats if isinstance(beats, list) else []:
        try:
            out.append(BeatRecord(str(item["started"]), float(item["seconds"]), [str(e) for e in item["entries"]],
                                  list(item["rounds"]), [str(w) for w in item.get("warnings", [])]))  # fmt: skip
        except (KeyError, TypeError, ValueError):
            continue
    return out[-KEEP:]


def save(session_file: Path, beats: list[BeatRecord]) -> None:
    atomic.write_json(log_path(session_file), {"version": 1, "beats": [asdict(b) for b in beats[-KEEP:]]})


def generation_seconds(beats: list[BeatRecord]) -> dict[str, float]:
    """Entry id → seconds the beat that wrote it took."""
    return {entry: beat.seconds for beat in beats for entry in beat.entries}
