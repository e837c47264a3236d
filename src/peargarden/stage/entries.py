"""Prompt entries: every ``#``–``######`` heading in a prompt file is a switchable entry.

Applies to the global and card ``APPEND_SYSTEM.md`` and the card ``AGENTS.md``.  The file is the
truth; the entry list is a view of it.  Every edit here is surgical on the raw text: the lines of
other entries, the order, the blank lines and the notes stay byte for byte as they were.

Syntax (spec §3):

* A heading line ``#{1,6}<space or tab><text>`` starts an entry (CRLF tolerated).  Text before the first
  heading is an untitled entry (name ``""``, level 0).
* A *comment block* runs from a line that is exactly ``<!--`` (after trimming) to its matching ``-->``
  line (unclosed: to the end of the file).  If its first non-blank line is a heading, the block is a
  **disabled entry**; otherwise it is a **note**: kept in the file, never sent, not an entry.
* One-line ``<!-- … -->`` comments are not blocks; they stay in the body and are sent.

Our choices where the upstream behaviour is loose, so edits never corrupt a file:

* Comment blocks nest by line (a ``<!--`` line inside a block opens an inner one).  Disabling an entry
  whose body holds a note therefore wraps it safely, and enabling it again restores the bytes.
* An entry's *span* ends before the next heading or disabled block, without trailing blank lines and
  without trailing notes (a note between two entries belongs to neither and survives their edits).
* Text after a disabled block and before the next heading is an untitled (enabled) entry.
* Duplicate names: the first one wins for look-ups.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import msgspec

from peargarden.errors import BadInput, NotFound

__all__ = [
    "CARD_SUFFIX",
    "LOREBOOK_SUFFIX_PREFIX",
    "PRESET_SUFFIX",
    "Entry",
    "append_entry",
    "delete_entry",
    "entry_source",
    "escape_body",
    "find_entry",
    "format_entry",
    "lorebook_suffix",
    "parse_entries",
    "render_for_model",
    "set_entry_content",
    "split_suffix",
    "strip_entries_where",
    "toggle_entry",
    "unique_entry_name",
]

PRESET_SUFFIX = "（预设）"
CARD_SUFFIX = "（角色卡）"
LOREBOOK_SUFFIX_PREFIX = "（世界书·"

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*\r?$")
_OPEN = "<!--"
_CLOSE = "-->"
_LORE_SUFFIX = re.compile(r"（世界书·([^（）]*)）$")


def lorebook_suffix(book: str) -> str:
    return f"{LOREBOOK_SUFFIX_PREFIX}{book}）"


def split_suffix(name: str) -> tuple[str, str | None, str | None]:
    """``name`` → (display title, source, book).  Source is ``preset``, ``card``, ``lorebook`` or None."""
    if name.endswith(PRESET_SUFFIX):
        return name[: -len(PRESET_SUFFIX)], "preset", None
    if name.endswith(CARD_SUFFIX):
        return name[: -len(CARD_SUFFIX)], "card", None
    match = _LORE_SUFFIX.search(name)
    if match:
        return name[: match.start()], "lorebook", match.group(1)
    return name, None, None


def entry_source(name: str) -> str | None:
    """Who owns the entry: a program source (``preset``/``card``/``lorebook``) or None (the user)."""
    return split_suffix(name)[1]


class Entry(msgspec.Struct, frozen=True):
    """One entry as parsed.  Line numbers index ``text.split("\\n")``; ``end`` is exclusive."""

    name: str  # heading text with its suffix: the key for toggle/edit/delete
    level: int  # 1–6; 0 for untitled text
    content: str  # body without notes, trimmed
    enabled: bool
    start: int  # first line of the span (the ``<!--`` line when disabled)
    end: int  # one past the last line of the span (the ``-->`` line when disabled)
    heading_line: int  # -1 for untitled text
    body_start: int
    body_end: int  # exclusive; excludes the closing ``-->`` and trailing blank lines/notes

    @property
    def title(self) -> str:
        return split_suffix(self.name)[0]

    @property
    def source(self) -> str | None:
        return split_suffix(self.name)[1]

    @property
    def book(self) -> str | None:
        return split_suffix(self.name)[2]

    @property
    def program_owned(self) -> bool:
        return self.source is not None


def _is_open(line: str) -> bool:
    return line.strip() == _OPEN


def _is_close(line: str) -> bool:
    return line.strip() == _CLOSE


def _block_end(lines: list[str], start: int) -> int:
    """Index of the ``-->`` matching the ``<!--`` at *start*, or ``len(lines)`` when unclosed."""
    depth = 0
    for index in range(start, len(lines)):
        if _is_open(lines[index]):
            depth += 1
        elif _is_close(lines[index]):
            depth -= 1
            if depth == 0:
                return index
    return len(lines)


def _first_nonblank(lines: list[str], start: int, stop: int) -> int:
    for index in range(start, stop):
        if lines[index].strip():
            return index
    return -1


def _strip_notes(lines: list[str]) -> str:
    """Body lines → text for the model: comment blocks removed, trimmed."""
    kept: list[str] = []
    index = 0
    while index < len(lines):
        if _is_open(lines[index]):
            index = _block_end(lines, index) + 1
            continue
        kept.append(lines[index].rstrip("\r"))
        index += 1
    return "\n".join(kept).strip()


def _trim_tail(lines: list[str], start: int, stop: int) -> int:
    """Move *stop* back over trailing blank lines and trailing note blocks (closed or not)."""
    # Top-level comment blocks inside [start, stop): opener → last line of the block.
    block_last: dict[int, int] = {}
    index = start
    while index < stop:
        if _is_open(lines[index]):
            end = min(_block_end(lines, index), stop - 1)
            block_last[end] = index
            index = end + 1
        else:
            index += 1
    while stop > start:
        if stop - 1 in block_last:
            stop = block_last[stop - 1]
        elif not lines[stop - 1].strip():
            stop -= 1
        else:
            break
    return stop


def parse_entries(text: str) -> list[Entry]:
    """All entries of a prompt file, in file order (notes are not entries)."""
    lines = text.split("\n")
    entries: list[Entry] = []
    # The open enabled entry: (start line, heading line or -1, level, name).
    current: tuple[int, int, int, str] | None = None

    def close(stop: int) -> None:
        nonlocal current
        if current is None:
            return
        start, heading, level, name = current
        current = None
        body_start = heading + 1 if heading >= 0 else start
        body_end = _trim_tail(lines, body_start, stop)
        content = _strip_notes(lines[body_start:body_end])
        if heading < 0 and not content:
            return  # blank or notes-only text is not an entry
        entries.append(Entry(name, level, content, True, start, body_end, heading, body_start, body_end))

    index = 0
    while index < len(lines):
        line = lines[index]
        if _is_open(line):
            end = _block_end(lines, index)
            inner = _first_nonblank(lines, index + 1, end)
            heading = _HEADING.match(lines[inner]) if inner != -1 else None
            if heading is None:
                if current is None:
                    current = (index, -1, 0, "")
                index = end + 1
                continue
            close(index)
            body_end = _trim_tail(lines, inner + 1, end)
            entries.append(
                Entry(
                    name=heading.group(2),
                    level=len(heading.group(1)),
                    content=_strip_notes(lines[inner + 1 : body_end]),
                    enabled=False,
                    start=index,
                    end=min(end + 1, len(lines)),
                    heading_line=inner,
                    body_start=inner + 1,
                    body_end=body_end,
                )
            )
            index = end + 1
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            close(index)
            current = (index, index, len(heading.group(1)), heading.group(2))
        elif current is None and line.strip():
            current = (index, -1, 0, "")
        index += 1
    close(len(lines))
    return entries


def find_entry(text: str, name: str) -> Entry | None:
    """The first entry called *name* (untitled text cannot be looked up)."""
    if not name:
        return None
    for entry in parse_entries(text):
        if entry.name == name:
            return entry
    return None


def render_for_model(text: str) -> str:
    """What the model sees: enabled entries only, notes and disabled blocks dropped.

    An empty file, or one whose entries are all disabled, gives ``""`` (the user's explicit choice).
    """
    parts: list[str] = []
    for entry in parse_entries(text):
        if not entry.enabled:
            continue
        pieces = [f"{'#' * entry.level} {entry.name}"] if entry.level else []
        if entry.content:
            pieces.append(entry.content)
        if pieces:
            parts.append("\n".join(pieces))
    return "\n\n".join(parts).strip()


def _require(text: str, name: str) -> Entry:
    entry = find_entry(text, name)
    if entry is None:
        raise NotFound(f"没有名为「{name}」的条目")
    return entry


def _newline_of(lines: list[str], at: int) -> str:
    """Keep a CRLF file CRLF: new lines copy the ending of a neighbouring line."""
    probe = lines[at] if 0 <= at < len(lines) else (lines[0] if lines else "")
    return "\r" if probe.endswith("\r") else ""


def toggle_entry(text: str, name: str, enabled: bool) -> str:
    """Switch an entry on or off by adding or removing its ``<!--``/``-->`` wrapper lines."""
    entry = _require(text, name)
    if entry.enabled == enabled:
        return text
    lines = text.split("\n")
    if enabled:
        # Remove the wrapper: the opening line and, when the block was closed, the closing line.
        closed = _block_end(lines, entry.start) < len(lines)
        middle = lines[entry.start + 1 : entry.end - 1 if closed else entry.end]
        return "\n".join(lines[: entry.start] + middle + lines[entry.end :])
    cr = _newline_of(lines, entry.heading_line)
    stop = entry.body_end
    if _has_stray_close(lines[entry.start : stop]):
        raise BadInput(f"条目「{name}」里有单独一行 -->，关闭它会弄乱文件；请先改掉那一行")
    wrapped = [_OPEN + cr, *lines[entry.start : stop], _CLOSE + cr]
    return "\n".join(lines[: entry.start] + wrapped + lines[stop:])


def _has_stray_close(lines: list[str]) -> bool:
    depth = 0
    for line in lines:
        if _is_open(line):
            depth += 1
        elif _is_close(line):
            if depth == 0:
                return True
            depth -= 1
    return False


def set_entry_content(text: str, name: str, content: str) -> str:
    """Replace an entry's body; its heading, wrapper and everything around it stay."""
    entry = _require(text, name)
    lines = text.split("\n")
    cr = _newline_of(lines, entry.heading_line)
    body = [line + cr for line in content.strip().split("\n")] if content.strip() else []
    # Blank lines between the heading and the old body stay (generated entries have one).
    start = entry.body_start
    while start < entry.body_end and not lines[start].strip():
        start += 1
    return "\n".join(lines[:start] + body + lines[entry.body_end :])


def append_entry(text: str, name: str, content: str, *, level: int = 2) -> str | None:
    """Add an entry at the end of the file; None when the name is taken."""
    if not name or find_entry(text, name) is not None:
        return None
    head = text.rstrip()
    block = f"{'#' * level} {name}\n{content.strip()}".rstrip() + "\n"
    return f"{head}\n\n{block}" if head else block


def delete_entry(text: str, name: str) -> str:
    """Remove an entry (with its wrapper when disabled); blank lines at the seam collapse to one."""
    entry = _require(text, name)
    lines = text.split("\n")
    before = lines[: entry.start]
    after = lines[entry.end :]
    return _join_seam(before, after)


def _join_seam(before: list[str], after: list[str]) -> str:
    # Keep at most one blank line between what was before and what follows.
    while before and not before[-1].strip() and len(before) >= 2 and not before[-2].strip():
        before = before[:-1]
    while after and not after[0].strip() and (not before or not before[-1].strip()):
        after = after[1:]
    joined = before + after
    while len(joined) > 1 and not joined[0].strip() and not joined[1].strip():
        joined = joined[1:]
    return "\n".join(joined)


def strip_entries_where(text: str, predicate: Callable[[Entry], bool]) -> str:
    """Delete every entry (enabled or not) that *predicate* selects."""
    while True:
        doomed = next((e for e in parse_entries(text) if e.name and predicate(e)), None)
        if doomed is None:
            return text
        lines = text.split("\n")
        text = _join_seam(lines[: doomed.start], lines[doomed.end :])


_BODY_HEADING = re.compile(r"^(#{1,6})(?=[ \t])", re.MULTILINE)


def escape_body(content: str) -> str:
    """Keep generated content inside its entry: a line-start ``#`` heading becomes full-width
    ``＃`` and a bare ``<!--``/``-->`` line gets a full-width angle, so neither splits the entry."""
    escaped = _BODY_HEADING.sub(lambda m: "＃" * len(m.group(1)), content)
    out: list[str] = []
    for line in escaped.split("\n"):
        if _is_open(line):
            line = line.replace("<!--", "＜!--", 1)
        elif _is_close(line):
            line = line.replace("-->", "--＞", 1)
        out.append(line)
    return "\n".join(out)


def format_entry(name: str, content: str, enabled: bool = True) -> str:
    """A program-generated entry: ``## name``, a blank line, the escaped content, a newline."""
    block = f"## {name}\n\n{escape_body(content.strip())}\n"
    return f"{_OPEN}\n{block}{_CLOSE}\n" if not enabled else block


def unique_entry_name(base: str, suffix: str, used: Iterable[str]) -> str:
    """``base + suffix``, or ``base·2 + suffix``, ``base·3 + suffix`` … when taken."""
    taken = set(used)
    base = base.strip() or "未命名"
    candidate = f"{base}{suffix}"
    counter = 2
    while candidate in taken:
        candidate = f"{base}·{counter}{suffix}"
        counter += 1
    return candidate
