"""The record of a chat's last beats, kept beside the session file (``web-beats.json``: the web app
kept it first; ``pear chat`` writes it too, so the page's inspector shows a beat played in the shell).

For each of the last :data:`KEEP` beats: when it started, how long it took, which message entries it
wrote, the ledger of every request it sent (the prompt inspector's "exact request": slot, role,
tokens and text per message) and its warnings.  Kept on disk so that the inspector's "last beat",
the in-context marker and each message's generation time survive a server restart.  A damaged or
missing file is an empty log (it is a record, not the story).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from peargarden.providers.base import ChatRequest
from peargarden.workspace import atomic

from .request_ledger import ledger as request_ledger
from .request_ledger import with_counts

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


def load(session_file: Path, *, counted: bool = True) -> list[BeatRecord]:
    """The log; ``counted``: token counts a ``pear chat`` beat left out are filled in (what the
    inspector and the context bar show); ``False`` reads it as written (to append to it)."""
    try:
        raw = json.loads(log_path(session_file).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    beats = raw.get("beats") if isinstance(raw, dict) else None
    out: list[BeatRecord] = []
    for item in beats if isinstance(beats, list) else []:
        try:
            rounds = [with_counts(r) if counted and isinstance(r, dict) else r for r in item["rounds"]]
            out.append(BeatRecord(str(item["started"]), float(item["seconds"]), [str(e) for e in item["entries"]],
                                  rounds, [str(w) for w in item.get("warnings", [])]))  # fmt: skip
        except (KeyError, TypeError, ValueError):
            continue
    return out[-KEEP:]


def save(session_file: Path, beats: list[BeatRecord]) -> None:
    atomic.write_json(log_path(session_file), {"version": 1, "beats": [asdict(b) for b in beats[-KEEP:]]})


def generation_seconds(beats: list[BeatRecord]) -> dict[str, float]:
    """Entry id → seconds the beat that wrote it took."""
    return {entry: beat.seconds for beat in beats for entry in beat.entries}


Ledger = Callable[[ChatRequest, str], dict[str, Any]]


def log_beat(
    session: Any,
    requests: Sequence[ChatRequest],
    *,
    started: float,
    before: Collection[str],
    warnings: list[str],
    beats: list[BeatRecord] | None = None,
    ledger: Ledger = request_ledger,
    counted: bool = True,
) -> list[BeatRecord]:
    """Keep a finished beat of *session* (a ``ChatSession``) in its chat's log, on disk and returned:
    the *requests* it sent, as the inspector's ledgers, the entries it wrote (those not in *before*),
    how long it took since *started* (``time.time()``), its warnings.  *beats*: the log as the
    caller holds it (the web keeps it open); ``None`` reads it from the file (``pear chat``).
    ``counted=False``: the token counts are left for the reader (see ``request_ledger.ledger``)."""
    model = session.resolved.model
    written = [entry.id for entry in session.chat.tree if entry.id not in before]
    when = datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds")
    rounds = [ledger(r, model) if counted else request_ledger(r, model, counted=False) for r in requests]
    record = BeatRecord(when, round(time.time() - started, 2), written, rounds, list(warnings))
    kept = [*(load(session.chat.path, counted=False) if beats is None else beats), record][-KEEP:]
    save(session.chat.path, kept)
    return kept
