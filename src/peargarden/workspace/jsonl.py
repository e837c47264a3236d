"""Reading append-only JSON-lines logs (session files) that may end in a torn line.

:func:`peargarden.workspace.atomic.append_line` fsyncs every entry, but a crash in the middle of a
write can leave a partial last line.  The next append starts a fresh line, so such a fragment can
also sit between good lines later on.  Readers skip these fragments instead of refusing the whole
file: every entry whose write returned is complete and is kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def parse_jsonl(data: bytes) -> tuple[list[Any], bool]:
    """Parse JSON lines; return the records and whether a torn (unparsable) line was skipped.

    Blank lines are ignored silently; a line that is not valid UTF-8 JSON counts as torn.  A final
    line without its newline is kept when it parses (files from other programs often end that way;
    a cut inside a JSON object never parses).
    """
    records: list[Any] = []
    torn = False
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            records.append(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            torn = True
    return records, torn


def read_jsonl_lines(path: Path) -> tuple[list[Any], bool]:
    """Read a JSON-lines file written with ``append_line``; a missing file has no records.

    Returns ``(records, torn)``; ``torn`` says a partial line from an interrupted write was skipped.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return [], False
    return parse_jsonl(data)
