"""Session files on disk: ``cards/<card>/chats/<chat id>/session.jsonl`` (the I/O edge of sessions).

The tree logic is pure (:mod:`peargarden.sessions`); this module reads a file into a tree, appends one
fsynced line per entry (``workspace.atomic.append_line``) and makes the ids and timestamps the pure
core must not make itself.  A chat id is ``YYYYMMDD-HHMMSS-<4 hex>`` (local time of creation).

Writes only append.  The one whole-file write is the first one of an imported SillyTavern chat (its
converted lines), and it only ever *creates* the file: when another process created it first, its
lines are read instead.  A chat open in one process sees what others appended through
:meth:`ChatFile.refresh` (the app calls it under the chat's lock, before each beat or edit), which
reads only the bytes past what it has already read.

A long chat's file gets a session index beside it, ``<chat id>/.cache/session.idx``
(:mod:`peargarden.sessions.index`): the next open reads only what was appended since.  It is a cache:
checked against the file's bytes on every use, rebuilt by a full read when it does not match,
written without fsync and never snapshotted (the vault skips ``.cache`` folders); it goes with its
chat's folder when that is deleted or moved.
"""

from __future__ import annotations

import contextlib
import gc
import os
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats import read_chat_jsonl
from peargarden.sessions import (
    Entry,
    LoadedSession,
    Plan,
    SessionTree,
    amend_line,
    custom_entry,
    decode,
    decode_bytes,
    entry_line,
    feed,
    header_line,
    leaf_line,
    message_entry,
)
from peargarden.sessions.index import read_indexed, read_with_index
from peargarden.sessions.sillytavern import import_chat
from peargarden.workspace import atomic
from peargarden.workspace.chat_import import IMPORTED_CHAT_FILE
from peargarden.workspace.chat_import import SESSION_FILE as SESSION_FILE  # its home for every caller

#: The session index of a chat, in its folder (see the module's docstring).
INDEX_FILE = ".cache/session.idx"
# A file shorter than this is read whole (a few milliseconds): no index.
INDEX_MIN_BYTES = 512 * 1024
# More than this appended since the index was written: read the file whole and write a new index
# (reading the appended lines is the part of an open that grows with them).
REINDEX_TAIL_BYTES = 256 * 1024

#: The custom entry a mode change is recorded as (``{"mode": name}``), on the branch it applies to.
MODE_ENTRY_TYPE = "mode"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_chat_id(now: datetime | None = None) -> str:
    moment = now or datetime.now()
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def valid_chat_id(chat_id: str) -> bool:
    """Ours are ``YYYYMMDD-HHMMSS-xxxx``; imported chats keep their file's stem (CJK, spaces)."""
    return (
        bool(chat_id.strip())
        and chat_id not in (".", "..")
        and not chat_id.startswith(".")
        and not any(ch in "/\\" or ord(ch) < 32 for ch in chat_id)
    )


def _converted_lines(chat_id: str, st_file: Path) -> list[str]:
    """The session lines for a SillyTavern chat the importer left in a chat folder.

    Ids are numbered and timestamps are the file's time, so reading it twice gives the same entries;
    nothing is written until the chat is played (the first append writes these lines first).
    """
    data = st_file.read_bytes()
    tavern = read_chat_jsonl(data, st_file.name)
    lines = ([tavern.header] if tavern.header else []) + [m.raw for m in tavern.messages]
    stamp = datetime.fromtimestamp(st_file.stat().st_mtime, UTC).isoformat(timespec="milliseconds")
    stamp = stamp.replace("+00:00", "Z")
    counter = iter(range(1, 1 << 31))
    imported = import_chat(lines, lambda: f"{next(counter):08x}", stamp)
    out = [header_line(chat_id, stamp, imported=st_file.name, st_header=imported.header)]
    out += [entry_line(entry) for entry in imported.entries]
    out.append(leaf_line(imported.leaf, stamp))
    return out


class ChatFile(msgspec.Struct):
    """One chat: its folder, header and tree, kept in step with the file."""

    path: Path
    header: dict[str, Any]
    tree: SessionTree
    warnings: list[str]
    clock: Callable[[], str] = utc_now
    # Lines of a converted SillyTavern chat not yet written (see _converted_lines).
    pending: list[str] | None = None
    # Bytes and lines of the file already read into the tree (see refresh).
    offset: int = 0
    lines_read: int = 0
    # The file read (device, inode): a file replaced since (a restore from the vault) is read again
    # whole, never continued at the old offset, whatever its size.
    identity: tuple[int, int] | None = None
    # A chat that is never written (a dry run's new chat, see :meth:`unsaved`): appends and leaf
    # moves stay in memory.
    in_memory: bool = False
    # Whether the last whole read went through the chat's session index (see _decoded), and whether
    # a whole read writes a new one.
    indexed: bool = False
    write_index: bool = True

    @property
    def chat_id(self) -> str:
        return str(self.header.get("id") or self.path.parent.name)

    # -- creating and opening ------------------------------------------------------------------

    @classmethod
    def create(cls, chats_dir: Path, chat_id: str | None = None, **header: Any) -> ChatFile:
        chat_id = chat_id or new_chat_id()
        while (chats_dir / chat_id).exists():
            chat_id = new_chat_id()
        path = chats_dir / chat_id / SESSION_FILE
        now = utc_now()
        atomic.append_line(path, header_line(chat_id, now, **header))
        chat = cls(
            path,
            {"type": "session", "version": 1, "id": chat_id, "timestamp": now, **header},
            SessionTree(),
            [],
        )
        chat._mark_read()
        return chat

    @classmethod
    def unsaved(cls, chats_dir: Path, **header: Any) -> ChatFile:
        """A new chat that exists only in memory: what a front previews before any chat is made
        (nothing is written, now or later)."""
        chat_id = new_chat_id()
        header = {"type": "session", "version": 1, "id": chat_id, "timestamp": utc_now(), **header}
        return cls(chats_dir / chat_id / SESSION_FILE, header, SessionTree(), [], in_memory=True)

    @classmethod
    def create_with(
        cls, chats_dir: Path, entries: list[Entry], leaf: str | None, chat_id: str | None = None, **header: Any
    ) -> ChatFile:
        """A new chat holding *entries* (parents first), written in one atomic write, not one fsync each;
        *chat_id* when it is free and valid (an imported chat keeps its file's name), else a new id."""
        if chat_id is None or not valid_chat_id(chat_id) or (chats_dir / chat_id).exists():
            chat_id = new_chat_id()
        while (chats_dir / chat_id).exists():
            chat_id = new_chat_id()
        now = utc_now()
        lines = [header_line(chat_id, now, **header), *(entry_line(e) for e in entries), leaf_line(leaf, now)]
        atomic.write_text(chats_dir / chat_id / SESSION_FILE, "\n".join(lines) + "\n")
        return cls.open(chats_dir, chat_id)

    @classmethod
    def open(cls, chats_dir: Path, chat_id: str, *, write_index: bool = True) -> ChatFile:
        """Read a chat; *write_index* false: a long chat read whole gets no new session index (a
        chat list reads every chat once, most of which are not opened again)."""
        if not valid_chat_id(chat_id):
            raise BadInput(f"对话 id 不合法：{chat_id!r}")
        path = chats_dir / chat_id / SESSION_FILE
        try:
            data, identity = _read(path)
        except FileNotFoundError:
            st_file = chats_dir / chat_id / IMPORTED_CHAT_FILE
            if not st_file.is_file():
                raise NotFound(f"没有对话 {chat_id}（no such chat）") from None
            pending = _converted_lines(chat_id, st_file)
            loaded = decode(pending)
            return cls(path, loaded.header, loaded.tree, loaded.warnings, pending=pending)
        chat = cls(path, {}, SessionTree(), [], write_index=write_index)
        chat._load(data, identity)
        return chat

    def _load(self, data: bytes, identity: tuple[int, int]) -> None:
        """Replace what is in memory with the file's *data* (all of it)."""
        # No cyclic collection while tens of thousands of entries are made: none of them can be
        # garbage yet, and a full collection over a growing heap cost more than the loading itself.
        collecting = gc.isenabled()
        gc.disable()
        try:
            loaded = self._decoded(data, identity)
        finally:
            if collecting:
                gc.enable()
        self.header, self.tree, self.warnings = loaded.header, loaded.tree, loaded.warnings
        self.pending = None
        # A torn last line (a crash mid-append) counts as read: the next append starts a new line.
        self.offset = len(data)
        self.lines_read = loaded.newlines
        self.identity = identity

    def _decoded(self, data: bytes, identity: tuple[int, int]) -> LoadedSession:
        """The session in *data*, through the chat's index when it has one that fits (see
        :mod:`peargarden.sessions.index`); a long chat read whole gets a new index."""
        self.indexed = False
        if len(data) < INDEX_MIN_BYTES:
            return decode_bytes(data)
        index_file = self.path.parent / INDEX_FILE
        try:
            blob = index_file.read_bytes()
        except OSError:  # none yet, or unreadable: the file itself is enough
            blob = b""
        if blob:
            found = read_with_index(data, identity, blob)
            if found is not None and (found[1] <= REINDEX_TAIL_BYTES or not self.write_index):
                self.indexed = True
                return found[0]
        if not self.write_index:
            return decode_bytes(data)
        loaded, blob_or_none = read_indexed(data, identity)
        if blob_or_none is not None:
            with contextlib.suppress(OSError):  # a read-only data folder still opens its chats
                atomic.write_cache(index_file, blob_or_none)
        return loaded

    def _mark_read(self) -> None:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self.offset, self.identity = 0, None
            return
        self.offset, self.identity = stat.st_size, (stat.st_dev, stat.st_ino)

    def refresh(self) -> bool:
        """Read what other processes appended since this chat was read; True when anything was.

        Call it holding the chat's lock (the app does): then nobody appends while it reads.
        """
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return False
        size = stat.st_size
        replaced = self.identity is not None and (stat.st_dev, stat.st_ino) != self.identity
        if self.pending is not None or size < self.offset or replaced:
            # Another process played the imported chat first, or the file was replaced (a restore).
            self._load(*_read(self.path))
            return True
        if size == self.offset:
            return False
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read(size - self.offset)
        cut = data.rfind(b"\n")
        if cut < 0:
            return False
        data = data[: cut + 1]
        lines = data.split(b"\n")
        loaded = LoadedSession(self.header, self.tree, self.warnings)
        feed(loaded, lines, first_line=self.lines_read + 1)
        self.offset += len(data)
        self.lines_read += data.count(b"\n")
        return True

    def _materialize(self) -> None:
        """Write the converted lines of an imported chat, creating the file (never replacing it)."""
        if self.pending is None:
            return
        if not atomic.create_text(self.path, "\n".join(self.pending) + "\n"):
            raise ConflictError(f"对话 {self.chat_id} 已被另一个 pear 进程写入，请重新打开它（chat changed）")
        self.pending = None
        self._mark_read()

    # -- writing --------------------------------------------------------------------------------

    def new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self.tree:
                return candidate

    def append(self, entry: Entry) -> Entry:
        """Write *entry* (fsynced), then add it to the tree: on a failed write the tree is unchanged."""
        if entry.parent_id is not None and entry.parent_id not in self.tree:
            raise NotFound(f"会话里没有父条目 {entry.parent_id}")
        if self.in_memory:
            return self.tree.add(entry)
        self._materialize()
        atomic.append_line(self.path, entry_line(entry))
        self._mark_read()
        return self.tree.add(entry)

    def append_message(self, message: dict[str, Any]) -> Entry:
        return self.append(message_entry(self.new_id(), self.tree.leaf, self.clock(), message))

    def append_custom(self, custom_type: str, data: Any) -> Entry:
        return self.append(custom_entry(self.new_id(), self.tree.leaf, self.clock(), custom_type, data))

    def move_leaf(self, leaf: str | None) -> None:
        if leaf == self.tree.leaf:
            return
        if leaf is not None and leaf not in self.tree:
            raise NotFound(f"会话里没有条目 {leaf}")
        if self.in_memory:
            self.tree.set_leaf(leaf)
            return
        self._materialize()
        atomic.append_line(self.path, leaf_line(leaf, self.clock()))
        self._mark_read()
        self.tree.set_leaf(leaf)

    def amend(self, entry_id: str, changes: dict[str, Any]) -> Entry:
        """Change message *entry_id* in place: an amend record is appended (fsynced; the message's own
        line is never rewritten), then the tree changes (see ``SessionTree.amend``)."""
        if self.tree.get(entry_id).type != "message":
            raise BadInput(f"条目 {entry_id} 不是消息，不能改写")
        if not self.in_memory:
            self._materialize()
            atomic.append_line(self.path, amend_line(entry_id, changes, self.clock()))
            self._mark_read()
        return self.tree.amend(entry_id, changes)

    def apply(self, plan: Plan) -> None:
        """Carry out a plan of :mod:`peargarden.sessions.ops` (leaf move, the new entries, then the
        messages changed in place)."""
        if not plan.entries:
            self.move_leaf(plan.start_leaf)
        else:
            first = plan.entries[0]
            if first.parent_id != plan.start_leaf:
                raise BadInput("内部错误：计划的第一条不接在起点上")
            self.tree.set_leaf(plan.start_leaf)  # the entry line itself records the fork on disk
            for entry in plan.entries:
                self.append(entry)
        for entry_id, changes in plan.amends:
            self.amend(entry_id, changes)


def _read(path: Path) -> tuple[bytes, tuple[int, int]]:
    """The file's bytes and (device, inode), of the same file even if it is replaced meanwhile."""
    with path.open("rb") as handle:
        stat = os.fstat(handle.fileno())
        return handle.read(), (stat.st_dev, stat.st_ino)


def list_chats(chats_dir: Path) -> list[str]:
    try:
        return sorted(
            p.name
            for p in chats_dir.iterdir()
            if p.is_dir()
            and ((p / SESSION_FILE).is_file() or (p / IMPORTED_CHAT_FILE).is_file())
            and valid_chat_id(p.name)
        )
    except OSError:
        return []


def remove_orphan_indexes(cards_dir: Path) -> list[Path]:
    """Remove the session indexes whose session file is gone (a chat folder removed by a vault
    restore, or a session file deleted by hand, leaves its ``.cache`` behind), with the folders they
    leave empty; returns the indexes removed."""
    removed: list[Path] = []
    for index in cards_dir.glob(f"*/chats/*/{INDEX_FILE}"):
        chat_dir = index.parent.parent
        if (chat_dir / SESSION_FILE).exists():
            continue
        try:
            index.unlink()
        except OSError:
            continue
        removed.append(index)
        for folder in (index.parent, chat_dir):
            with contextlib.suppress(OSError):  # not empty: something else lives there
                folder.rmdir()
    return removed


def last_written(chats_dir: Path, chat_id: str) -> float:
    """When the chat's file was last written (0 when it cannot be read)."""
    for name in (SESSION_FILE, IMPORTED_CHAT_FILE):
        try:
            return (chats_dir / chat_id / name).stat().st_mtime
        except OSError:
            continue
    return 0.0


def recorded_mode(chat: ChatFile) -> str:
    """The latest mode change recorded on the active branch ("" when there is none)."""
    changes = chat.tree.customs(MODE_ENTRY_TYPE)
    data = changes[-1].body.get("data") if changes else None
    return str(data.get("mode") or "") if isinstance(data, dict) else ""


def branch_mode(chat: ChatFile) -> str:
    """The mode a chat is in on its active branch: its latest recorded change, else its header's."""
    return recorded_mode(chat) or str(chat.header.get("mode") or "")
