"""The record of a chat's last beats, kept beside the session file (``web-beats.json``: the web app
kept it first).  The service writes it after every recorded beat, whichever front played it, so the
page's inspector shows a beat played in the shell.

For each of the last :data:`KEEP` beats: when it started, how long it took, which message entries it
wrote, the ledger of every request it sent (the prompt inspector's "exact request": slot, role,
tokens and text per message), its warnings, and how long each of the mode's steps around it took
(``steps``: ``{"step", "seconds", "speaker"}``).  Kept on disk so that the inspector's "last beat",
the in-context marker and each message's generation time survive a server restart.  A damaged or
missing file is an empty log (it is a record, not the story: the asset vault leaves it out, as ten
beats of a long chat's requests are megabytes rewritten on every beat).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from peargarden.agent.result import BeatResult
from peargarden.formats import dumps_json
from peargarden.workspace import atomic
from peargarden.workspace.home import BEAT_LOG_FILE

from .request_ledger import ledger as request_ledger
from .request_ledger import with_counts

FILE_NAME = BEAT_LOG_FILE
KEEP = 10


class BeatRecord(msgspec.Struct):
    started: str
    seconds: float
    entries: list[str] = msgspec.field(default_factory=list)
    rounds: list[dict[str, Any]] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    steps: list[dict[str, Any]] = msgspec.field(default_factory=list)


def log_path(session_file: Path) -> Path:
    return session_file.parent / FILE_NAME


def load(session_file: Path, *, counted: bool = True) -> list[BeatRecord]:
    """The log; ``counted``: token counts a ``pear chat`` beat left out are filled in (what the
    inspector and the context bar show); ``False`` reads it as written (to append to it)."""
    try:
        data = log_path(session_file).read_bytes()
    except OSError:
        return []
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:  # broken, or a lone surrogate's escape, which only json reads
        try:
            raw = json.loads(data.decode("utf-8", errors="surrogatepass"))
        except ValueError:
            return []
    beats = raw.get("beats") if isinstance(raw, dict) else None
    out: list[BeatRecord] = []
    for item in beats if isinstance(beats, list) else []:
        try:
            rounds = [with_counts(r) if counted and isinstance(r, dict) else r for r in item["rounds"]]
            steps = [step for step in item.get("steps", []) if isinstance(step, dict)]
            out.append(BeatRecord(str(item["started"]), float(item["seconds"]), [str(e) for e in item["entries"]],
                                  rounds, [str(w) for w in item.get("warnings", [])], steps))  # fmt: skip
        except (KeyError, TypeError, ValueError):
            continue
    return out[-KEEP:]


def save(session_file: Path, beats: list[BeatRecord]) -> None:
    """Rewrite the log: one line written by msgspec (a tenth of ``json``'s time for the megabytes
    of request texts ten beats of a long chat hold), ``json``'s escapes when a lone surrogate is in
    it.  A cache's write (no ``fsync``): a log torn by a power cut reads as empty, like a damaged one."""
    log = {"version": 1, "beats": [_as_json(b) for b in beats[-KEEP:]]}
    try:
        data = msgspec.json.encode(log)
    except UnicodeEncodeError:
        data = dumps_json(log).encode("utf-8")
    atomic.write_cache(log_path(session_file), data + b"\n")


def _as_json(beat: BeatRecord) -> dict[str, Any]:
    """The record as written; its ledgers are already JSON values, written as they are (``asdict``
    deep-copied ten beats of request texts on every beat: a tenth of a second on a long chat)."""
    return {
        "started": beat.started,
        "seconds": beat.seconds,
        "entries": beat.entries,
        "rounds": beat.rounds,
        "warnings": beat.warnings,
        "steps": beat.steps,
    }


def generation_seconds(beats: list[BeatRecord]) -> dict[str, float]:
    """Entry id → seconds the beat that wrote it took."""
    return {entry: beat.seconds for beat in beats for entry in beat.entries}


def lore_fired(beats: list[BeatRecord]) -> dict[str, list[dict[str, str]]]:
    """Entry id → the lorebook entries that fired for the beat that wrote it (its own requests, not
    story memory's side calls; each entry once, in the order they fired)."""
    out: dict[str, list[dict[str, str]]] = {}
    for beat in beats:
        fired: dict[tuple[str, str], dict[str, str]] = {}
        for ledger in beat.rounds:
            if ledger.get("purpose", "beat") != "beat":
                continue
            for hit in ledger.get("lore") or []:
                if isinstance(hit, dict):
                    title, book = str(hit.get("title") or ""), str(hit.get("book") or "")
                    fired.setdefault((title, book), {"title": title, "book": book})
        if fired:
            for entry in beat.entries:
                out[entry] = list(fired.values())
    return out


def log_beat(session_file: Path, result: BeatResult, started: float) -> BeatRecord:
    """Keep a finished beat in its chat's log on disk (the last :data:`KEEP` beats): the requests
    it sent as the inspector's ledgers (token counts left for the reader, see
    ``request_ledger.with_counts``: a beat never loads a tokenizer it did not need), the entries it
    wrote, the reply's time, its warnings, its mode's steps' times.  Returns the new record."""
    when = datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds")
    rounds = [request_ledger(sent.request, sent.model, counted=False, purpose=sent.purpose) for sent in result.requests]
    steps = [msgspec.structs.asdict(step) for step in result.steps]
    record = BeatRecord(when, result.seconds, list(result.entries), rounds, list(result.warnings), steps)
    save(session_file, [*load(session_file, counted=False), record])
    return record


def counted(record: BeatRecord) -> BeatRecord:
    """*record* with the token counts its ledgers left out filled in (what the inspector shows)."""
    record.rounds = [with_counts(r) if isinstance(r, dict) else r for r in record.rounds]
    return record
