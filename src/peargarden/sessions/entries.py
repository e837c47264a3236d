"""Session entries: one JSON object per line, a node of the session tree.

Every entry has ``id`` (8 hex), ``parentId`` (``None`` for a root), ``type`` and ``timestamp`` (ISO 8601,
given by the caller).  Type-specific fields sit beside them on the same line:

``message``     ``message``: a chat message ``{"role": "user"|"assistant"|"tool"|"system", "content": str,
                ...}``.  Assistant messages keep ``reasoning``, ``tool_calls`` (``[{"id", "name",
                "arguments"}]``, arguments as the raw JSON text), ``usage``, ``model`` and ``stop_reason``;
                tool messages keep ``tool_call_id``, ``name``, ``is_error`` and ``details``; ``tags`` lists
                markers such as ``"greeting"`` or ``"work"`` (work-mode messages).
``custom``      ``customType`` and ``data``: program state that follows the branch (session grants,
                draft sheets); never sent to the model.
``label``       ``targetId`` and ``label`` (``None`` clears): a bookmark on another entry.
``compaction``  ``summary``, ``firstKeptEntryId``, ``tokensBefore`` and optional ``details``: the context
                before the kept entry is replaced by the summary.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

# Markers in a message's ``tags``, and what they mean everywhere a chat is read:
HIDDEN_TAG = "hidden"  # SillyTavern's ``is_system``: kept in the chat, never sent to the model
GREETING_TAG = "greeting"  # the card's opening message (or one of its alternates)
WORK_TAG = "work"  # a work-mode message (写卡维护): outside the story
NARRATOR_TAG = "narrator"  # SillyTavern's narrator message (``/sys``): sent as a system message
COMMENT_TAG = "comment"  # SillyTavern's note (``/comment``): shown, hidden from the model
WORK_TAGS = frozenset({WORK_TAG, "写卡维护"})


def tagged(message: dict[str, Any], tag: str) -> bool:
    """Whether the message dict carries *tag* in its ``tags``."""
    tags = message.get("tags")
    return isinstance(tags, list) and tag in tags


EntryType = Literal["message", "custom", "label", "compaction"]
ENTRY_TYPES: tuple[EntryType, ...] = ("message", "custom", "label", "compaction")

_BASE_KEYS = ("id", "parentId", "type", "timestamp")


class Entry(msgspec.Struct, eq=False, gc=False):
    """One node of the session tree.  Never changed once made (treat every field as read-only).

    ``Entry(id, parent_id, type, timestamp, body=None, line=None)``: *line* is the entry's file line
    (a JSON object, already checked) instead of *body*: an entry read from a file keeps its line
    and decodes the body (everything besides the four base fields) the first time it is asked for,
    as the whole line would have been (invalid UTF-8 replaced).  Opening a 20,000-message chat
    needs only the ids, parents and types of its entries, and a beat reads the bodies of the newest
    few.  ``Entry(..., None, data, start, end)`` (*end* > 0): the line is ``data[start:end]``, the
    bytes of the whole file shared by all its entries rather than copied line by line (an open
    through a session index, :mod:`.index`).

    A msgspec struct rather than a class with ``__slots__``: made in C, the 42,000 entries of a
    long chat with swipes cost a third less to make at open.  Not tracked by the cyclic garbage
    collector (``gc=False``): an entry refers only to strings, bytes and its decoded JSON body,
    which never refer back to it, so it can never be part of a reference cycle.
    """

    id: str
    parent_id: str | None
    type: EntryType
    timestamp: str
    _body: dict[str, Any] | None = None
    _line: bytes | None = None
    _start: int = 0
    _end: int = 0  # 0: _line is the line itself
    # (role, tags, whether it calls tools) as the context read them from the line: see note_shape
    _shape: tuple[str, tuple[str, ...], bool] | None = None

    def with_parent(self, parent_id: str | None) -> Entry:
        """The same entry under another parent (still decoded only when read)."""
        if self._body is None:
            return Entry(self.id, parent_id, self.type, self.timestamp, None, self._line, self._start, self._end)
        return Entry(self.id, parent_id, self.type, self.timestamp, self._body)

    @property
    def body(self) -> dict[str, Any]:
        body = self._body
        if body is None:
            line = self._line
            if line is None:  # made without a body, or another thread decoded it just now (it sets
                # _body before clearing _line)
                body = self._body
                if body is None:
                    body = self._body = {}
                return body
            end = self._end
            body = self._body = _body_of(memoryview(line)[self._start : end] if end else line)
            self._line = None
        return body

    def note_shape(self, role: str, tags: Sequence[str], calls_tools: bool) -> None:
        """Remember what the context decoded from this message's line (its role, tags and whether it
        calls tools), so a later pass over the branch in the same process (the count of the user
        turns still due for compaction) need not decode the line again."""
        self._shape = (role, tuple(tags), calls_tools)

    @property
    def shape(self) -> tuple[str, tuple[str, ...], bool] | None:
        """What :meth:`note_shape` remembered, or ``None``."""
        return self._shape

    def raw_line(self) -> bytes | memoryview | None:
        """The entry's line while its body is not decoded yet (None once it is, or for an entry made
        with a body): for a reader that decodes only what it needs of it."""
        line = self._line
        if line is None or self._body is not None:
            return None
        end = self._end
        return memoryview(line)[self._start : end] if end else line

    @property
    def message(self) -> dict[str, Any]:
        """The chat message of a ``message`` entry (an empty dict for other types)."""
        body = self._body  # decoded already, in the common case: no second property call
        value = (self.body if body is None else body).get("message")
        return value if isinstance(value, dict) else {}

    @property
    def role(self) -> str:
        return str(self.message.get("role", "")) if self.type == "message" else ""

    @property
    def hidden(self) -> bool:
        """Kept in the chat but never sent to the model (SillyTavern's ``/hide``, ``is_system``)."""
        return tagged(self.message, HIDDEN_TAG)

    @property
    def greeting(self) -> bool:
        return tagged(self.message, GREETING_TAG)

    @property
    def work(self) -> bool:
        """A work-mode message (写卡维护): outside the story."""
        tags = self.message.get("tags")
        return isinstance(tags, list) and not WORK_TAGS.isdisjoint(tags)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Entry):
            return NotImplemented
        # The base fields first: comparing unequal entries then rarely needs a body decoded.
        return (
            self.id == other.id
            and self.parent_id == other.parent_id
            and self.type == other.type
            and self.timestamp == other.timestamp
            and self.body == other.body
        )

    __hash__ = None  # type: ignore[assignment]  # the body is a dict: entries are not hashable

    def __repr__(self) -> str:
        return (
            f"Entry(id={self.id!r}, parent_id={self.parent_id!r}, type={self.type!r}, "
            f"timestamp={self.timestamp!r}, body={self.body!r})"
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "parentId": self.parent_id, "type": self.type}
        if self.timestamp:  # an imported entry has none of its own (its time is in its line)
            out["timestamp"] = self.timestamp
        out.update(self.body)
        return out

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Entry:
        """Build an entry from a decoded line; raises ``ValueError`` when the line is not an entry."""
        entry_id, parent, kind = check_head(value.get("id"), value.get("parentId"), value.get("type"))
        body = dict(value)  # then drop the base keys (cheaper than filtering 20,000 lines key by key)
        for key in _BASE_KEYS:
            body.pop(key, None)
        timestamp = value.get("timestamp")
        return cls(entry_id, parent, kind, str(timestamp or ""), body)


def check_head(entry_id: Any, parent: Any, kind: Any) -> tuple[str, str | None, EntryType]:
    """The base fields of an entry line, checked; ``ValueError`` names what is wrong."""
    if not isinstance(entry_id, str) or not entry_id:
        raise ValueError("entry without an id")
    if parent is not None and not isinstance(parent, str):
        raise ValueError(f"entry {entry_id}: parentId is not a string")
    if kind not in ENTRY_TYPES:
        raise ValueError(f"entry {entry_id}: unknown type {kind!r}")
    return entry_id, parent, kind


# msgspec decodes a body about twice as fast as json (export reads every body on the path and every
# swipe beside it); what it refuses (lone surrogate escapes, NaN, out-of-range floats, invalid UTF-8)
# is read by json as before, so a line means what it meant.
_DECODE_BODY = msgspec.json.Decoder()


def _body_of(line: bytes | memoryview) -> dict[str, Any]:
    try:
        value = _DECODE_BODY.decode(line)
    except (msgspec.DecodeError, UnicodeDecodeError):
        try:
            value = json.loads(str(line, "utf-8", errors="replace"))
        except ValueError:  # the loader's check took the line; no line it takes is known to fail here
            return {}
    body = value if isinstance(value, dict) else {}  # a new dict, this entry's own
    for key in _BASE_KEYS:
        body.pop(key, None)
    return body


def message_entry(entry_id: str, parent_id: str | None, timestamp: str, message: dict[str, Any]) -> Entry:
    return Entry(entry_id, parent_id, "message", timestamp, {"message": message})


def custom_entry(entry_id: str, parent_id: str | None, timestamp: str, custom_type: str, data: Any) -> Entry:
    return Entry(entry_id, parent_id, "custom", timestamp, {"customType": custom_type, "data": data})


def label_entry(entry_id: str, parent_id: str | None, timestamp: str, target_id: str, label: str | None) -> Entry:
    return Entry(entry_id, parent_id, "label", timestamp, {"targetId": target_id, "label": label})


def compaction_entry(
    entry_id: str,
    parent_id: str | None,
    timestamp: str,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int,
    details: dict[str, Any] | None = None,
) -> Entry:
    body: dict[str, Any] = {
        "summary": summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
    if details is not None:
        body["details"] = details
    return Entry(entry_id, parent_id, "compaction", timestamp, body)
