"""Output limits shared by the file tools and bash: 2000 lines or 50 KiB, whichever comes first.

Head truncation (``read``) never returns a partial line; tail truncation (``bash``) keeps the end and
returns a partial line only when one line alone exceeds the byte limit.
"""

from __future__ import annotations

import msgspec

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


class Truncated(msgspec.Struct, frozen=True):
    text: str
    truncated: bool
    by: str  # "lines" | "bytes" | ""
    total_lines: int
    kept_lines: int
    first_line_too_big: bool = False
    partial_last_line: bool = False


def truncate_head(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Truncated:
    lines = text.split("\n")
    total = len(lines)
    kept: list[str] = []
    used = 0
    by = ""
    for index, line in enumerate(lines):
        if index >= max_lines:
            by = "lines"
            break
        size = len(line.encode("utf-8")) + (1 if index else 0)
        if used + size > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += size
    if not by:
        return Truncated(text, False, "", total, total)
    return Truncated("\n".join(kept), True, by, total, len(kept), first_line_too_big=not kept)


def truncate_tail(text: str, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> Truncated:
    lines = text.split("\n")
    total = len(lines)
    kept: list[str] = []
    used = 0
    by = ""
    for index, line in enumerate(reversed(lines)):
        if index >= max_lines:
            by = "lines"
            break
        size = len(line.encode("utf-8")) + (1 if index else 0)
        if used + size > max_bytes:
            by = "bytes"
            if not kept:  # one line alone is too big: keep its end
                tail = line.encode("utf-8")[-max_bytes:].decode("utf-8", "ignore")
                return Truncated(tail, True, by, total, 1, partial_last_line=True)
            break
        kept.append(line)
        used += size
    if not by:
        return Truncated(text, False, "", total, total)
    kept.reverse()
    return Truncated("\n".join(kept), True, by, total, len(kept))
