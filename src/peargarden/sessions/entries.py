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

from dataclasses import dataclass, field
from typing import Any, Literal

EntryType = Literal["message", "custom", "label", "compaction"]
ENTRY_TYPES: tuple[EntryType, ...] = ("message", "custom", "label", "compaction")

_BASE_KEYS = ("id", "parentId", "type", "timestamp")


@dataclass(frozen=True)
class Entry:
    id: str
    parent_id: str | None
    type: EntryType
    timestamp: str
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> dict[str, Any]:
        """The chat message of a ``message`` entry (an empty dict for other types)."""
        value = self.body.get("message")
        return value if isinstance(value, dict) else {}

    @property
    def role(self) -> str:
        return str(self.message.get("role", "")) if self.type == "message" else ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "parentId": self.parent_id,
            "type": self.type,
            "timestamp": self.timestamp,
        }
        out.update(self.body)
        return out

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Entry:
        """Build an entry from a decoded line; raises ``ValueError`` when the line is not an entry."""
        entry_id = value.get("id")
        parent = value.get("parentId")
        kind = value.get("type")
        if not isinstance(entry_id, str) or not entry_id:
            raise ValueError("entry without an id")
        if parent is not None and not isinstance(parent, str):
            raise ValueError(f"entry {entry_id}: parentId is not a string")
        if kind not in ENTRY_TYPES:
            raise ValueError(f"entry {entry_id}: unknown type {kind!r}")
        body = dict(value)  # then drop the base keys (cheaper than filtering 20,000 lines key by key)
        for key in _BASE_KEYS:
            body.pop(key, None)
        timestamp = value.get("timestamp")
        return cls(entry_id, parent, kind, str(timestamp or ""), body)


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
