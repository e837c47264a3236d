"""A SillyTavern chat file as a session file: read, checked and converted one line at a time.

``pear import`` reads a chat twice and never holds it: :func:`scan_chat` checks every line (what
:func:`peargarden.formats.iter_chat_jsonl` checks) and counts the messages before anything is
written; :class:`ChatConversion` then makes the session file's bytes as it reads the file again,
for :func:`peargarden.workspace.atomic.write_chunks`.  What it holds at once is one line of the chat
and a block of session lines, so the size a chat may have is set by the disk and the time it takes,
not by memory: :data:`MAX_CHAT_BYTES` for the file, :data:`MAX_LINE_BYTES` (what the importer reads
whole for any other kind of file) for one line.  A chat in UTF-16 (Notepad's "Unicode") cannot be cut
into lines before it is decoded; it is read whole, within that limit, and converted the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput
from peargarden.formats import is_chat_text, iter_chat_jsonl, read_chat_jsonl
from peargarden.sessions import entry_line, header_line, leaf_line
from peargarden.sessions.sillytavern import StImport

from .inputs import MAX_FILE_BYTES, input_rows, read_input

#: A chat's session file, in its folder ``cards/<card>/chats/<chat id>/``.
SESSION_FILE = "session.jsonl"
#: A SillyTavern chat an older version left in a chat folder to be converted when first opened.
IMPORTED_CHAT_FILE = "sillytavern.jsonl"
#: The largest chat file ``pear import`` converts (it is read a line at a time).
MAX_CHAT_BYTES = 1024 * 1024 * 1024
#: The longest line of a chat file (the limit of a file read whole).
MAX_LINE_BYTES = MAX_FILE_BYTES
# Session lines gathered before they are handed to the writer.
_CHUNK_BYTES = 1024 * 1024
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def is_streamed_chat(path: Path) -> bool:
    """Whether *path* is a UTF-8 SillyTavern chat (by its first line), to be read a line at a time.
    Anything it cannot tell (a missing file, a first line too long) is left to the whole read."""
    try:
        for row in input_rows(path, limit=MAX_CHAT_BYTES, line_limit=MAX_LINE_BYTES):
            if row.startswith(_UTF16_MARKS):
                return False
            try:
                text = row.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
            except UnicodeDecodeError:
                return False
            if text.strip():
                return is_chat_text(text.strip())
    except BadInput:
        return False
    return False


class ChatSource(msgspec.Struct, frozen=True):
    """A chat file to import: read a line at a time (*streamed*) or whole (UTF-16)."""

    path: Path
    streamed: bool

    def objects(self) -> Iterator[dict[str, Any]]:
        """The header (when there is one) and the messages, checked."""
        name = str(self.path)
        if self.streamed:
            return iter_chat_jsonl(input_rows(self.path, limit=MAX_CHAT_BYTES, line_limit=MAX_LINE_BYTES), name)
        chat = read_chat_jsonl(read_input(self.path), name)
        return iter(([chat.header] if chat.header else []) + [message.raw for message in chat.messages])


def scan_chat(source: ChatSource) -> int:
    """Check every line of the chat; how many messages it holds."""
    return sum("mes" in value for value in source.objects())


class ChatConversion(msgspec.Struct, frozen=True):
    """The session file of an imported chat, made as the chat is read (see :meth:`chunks`)."""

    source: ChatSource
    chat_id: str
    imported: str  # the name of the file it came from, kept in the session's header

    def chunks(self) -> Iterator[bytes]:
        return _blocks(self._lines())

    def _lines(self) -> Iterator[str]:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        counter = itertools.count(1)
        # Ids are numbered (in hex, unpadded: they are in every line): the chat is new, so they
        # cannot collide, and ids made later (eight hex digits) are never as short.
        # The entries carry no time of their own: when a message was written is its SillyTavern
        # send_date (kept with its line), when it was imported the session header's timestamp.
        importer = StImport(lambda: f"{next(counter):x}", "")
        objects = self.source.objects()
        first = importer.feed(next(objects))  # the ST header, if there is one, is known after it
        yield header_line(self.chat_id, stamp, imported=self.imported, st_header=importer.header)
        yield from map(entry_line, first)
        for value in objects:
            yield from map(entry_line, importer.feed(value))
        yield leaf_line(importer.leaf, stamp)


def _blocks(lines: Iterable[str]) -> Iterator[bytes]:
    """*lines* as UTF-8 bytes, each ending in a newline, handed out about a megabyte at a time."""
    block: list[bytes] = []
    size = 0
    for line in lines:
        data = line.encode("utf-8") + b"\n"
        block.append(data)
        size += len(data)
        if size >= _CHUNK_BYTES:
            yield b"".join(block)
            block, size = [], 0
    if block:
        yield b"".join(block)
