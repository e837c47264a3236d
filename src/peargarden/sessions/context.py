"""Context rebuilt from a path of entries: what the request builders see of the chat.

Only ``message`` and ``compaction`` entries contribute.  With a compaction on the path, the summary
comes first (as a user message), then the kept entries from ``firstKeptEntryId`` up to the compaction,
then everything after it; only the latest compaction counts.  A message whose note on the path gives
it a shown text (:mod:`.variables`: MVU's status placeholder appended, an update block stripped) is
seen with that text.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

import msgspec

from .entries import GREETING_TAG, HIDDEN_TAG, WORK_TAGS, Entry
from .variables import bound_message

COMPACTION_PREFIX = "此前的对话已压缩为下面的摘要：\n\n<summary>\n"
COMPACTION_SUFFIX = "\n</summary>"


class ContextMessage(msgspec.Struct, gc=False):
    """A chat message as builders see it, with the entry it came from.  Change it with
    :func:`msgspec.structs.replace`.

    A msgspec struct: a long chat makes tens of thousands of them on every beat of a new process,
    made in C, decoded straight from the entries' lines (:func:`build_context`), and not tracked by
    the cyclic garbage collector (a message refers to strings, and lists of the values its line
    held, never back to a message)."""

    role: str
    content: str
    entry_id: str | None = None
    name: str | None = None
    reasoning: str | None = None
    tool_calls: list[dict[str, Any]] = msgspec.field(default_factory=list)
    tool_call_id: str | None = None
    is_error: bool = False
    tags: list[str] = msgspec.field(default_factory=list)

    @property
    def hidden(self) -> bool:
        """Kept in the chat but never sent to the model (SillyTavern's ``/hide``, ``is_system``)."""
        return HIDDEN_TAG in self.tags

    @property
    def greeting(self) -> bool:
        return GREETING_TAG in self.tags

    @property
    def work(self) -> bool:
        """A work-mode message (写卡维护): outside the story."""
        return not WORK_TAGS.isdisjoint(self.tags)

    def to_message(self) -> dict[str, Any]:
        """The message as a session entry stores it (the fields it has, and no others)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        for key in ("name", "reasoning", "tool_call_id"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.tool_calls:
            out["tool_calls"] = list(self.tool_calls)
        if self.is_error:
            out["is_error"] = True
        if self.tags:
            out["tags"] = list(self.tags)
        return out

    @classmethod
    def from_entry(cls, entry: Entry) -> ContextMessage:
        msg = entry.message
        calls = msg.get("tool_calls")
        tags = msg.get("tags")
        return cls(
            role=str(msg.get("role", "user")),
            content=str(msg.get("content") or ""),
            entry_id=entry.id,
            name=msg.get("name") if isinstance(msg.get("name"), str) else None,
            reasoning=msg.get("reasoning") if isinstance(msg.get("reasoning"), str) else None,
            tool_calls=list(calls) if isinstance(calls, list) else [],
            tool_call_id=msg.get("tool_call_id") if isinstance(msg.get("tool_call_id"), str) else None,
            is_error=bool(msg.get("is_error", False)),
            tags=list(tags) if isinstance(tags, list) else [],
        )

    def to_openai(self) -> dict[str, Any]:
        """OpenAI Chat shape.  Reasoning goes out as ``reasoning_content``; the provider decides
        per endpoint whether to send it back."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.role == "assistant":
            if self.reasoning:
                out["reasoning_content"] = self.reasoning
            if self.tool_calls:
                out["tool_calls"] = [
                    {
                        "id": call.get("id", ""),
                        "type": "function",
                        "function": {"name": call.get("name", ""), "arguments": call.get("arguments", "{}")},
                    }
                    for call in self.tool_calls
                ]
        elif self.role == "tool":
            out["tool_call_id"] = self.tool_call_id or ""
        return out


class _MessageLine(msgspec.Struct, gc=False):
    """A message entry's line, as far as its context message needs it (the rest is skipped)."""

    message: ContextMessage


_MESSAGE_LINE = msgspec.json.Decoder(_MessageLine)


def context_message(entry: Entry) -> ContextMessage:
    """:meth:`ContextMessage.from_entry`, straight from the entry's line while its body is not
    decoded (a new process's beat over a long chat decodes every message on the branch once).

    Only a line whose message has exactly the types a well-formed message has (role, content, name,
    reasoning and tool_call_id strings, tool_calls a list of objects, is_error a boolean, tags a list
    of strings) is taken this way; anything else (a missing content, a null, a number, a lone
    surrogate) goes through ``from_entry`` as before, so the message is the same either way."""
    line = entry.raw_line()
    if line is not None:
        try:
            message = _MESSAGE_LINE.decode(line).message
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass
        else:
            message.entry_id = entry.id
            entry.note_shape(message.role, message.tags, bool(message.tool_calls))
            return message
    return ContextMessage.from_entry(entry)


def build_context(
    path: Sequence[Entry], cache: MutableMapping[str, ContextMessage] | None = None
) -> list[ContextMessage]:
    """The messages of *path* (root first) with the latest compaction applied.

    Entries never change, so a caller replaying the same chat may pass *cache* (entry id → message)
    to convert each entry once; the returned messages are then shared and must be treated as read-only.
    """
    convert = context_message
    if cache is not None:
        memo = cache

        def convert(entry: Entry) -> ContextMessage:
            found = memo.get(entry.id)
            if found is None:
                found = memo[entry.id] = context_message(entry)
            return found

    last_compaction = -1
    noted = False
    for index, entry in enumerate(path):
        if entry.type == "compaction":
            last_compaction = index
        elif entry.type == "custom" and not noted:
            noted = bound_message(entry) is not None
    if last_compaction < 0:
        messages = [convert(entry) for entry in path if entry.type == "message"]
        return _with_shown_texts(messages, path) if noted else messages
    compaction = path[last_compaction]
    summary = str(compaction.body.get("summary", ""))
    out = [ContextMessage("user", COMPACTION_PREFIX + summary + COMPACTION_SUFFIX, compaction.id, tags=["compaction"])]
    first_kept = compaction.body.get("firstKeptEntryId")
    keeping = False
    for entry in path[:last_compaction]:
        keeping = keeping or entry.id == first_kept
        if keeping and entry.type == "message":
            out.append(convert(entry))
    out.extend(convert(entry) for entry in path[last_compaction + 1 :] if entry.type == "message")
    return _with_shown_texts(out, path) if noted else out


def _shown_text(entry: Entry) -> tuple[str, str] | None:
    """(message id, text) when *entry* is a note giving a message its shown text."""
    target = bound_message(entry)
    text = entry.body["data"].get("text") if target is not None else None
    return (target, text) if target is not None and isinstance(text, str) else None


def _with_shown_texts(messages: list[ContextMessage], entries: Sequence[Entry]) -> list[ContextMessage]:
    """*messages* with the shown texts the notes among *entries* give them (copies: the cached
    messages are shared and never changed)."""
    for entry in entries:
        shown = _shown_text(entry) if entry.type == "custom" else None
        if shown is None:
            continue
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].entry_id == shown[0]:
                messages[index] = msgspec.structs.replace(messages[index], content=shown[1])
                break
    return messages


def to_openai(messages: Sequence[ContextMessage]) -> list[dict[str, Any]]:
    return [message.to_openai() for message in messages]


class ContextMemo:
    """:func:`build_context` for one chat, beat after beat, converting only what is new.

    A path that continues the last one (its entry at the last path's end is that very entry, so
    everything before it is the same chain of parents) and has no compaction among the new entries
    gives the last messages plus the new ones: a beat of a 20,000-message chat no longer walks all
    of them.  Anything else (a swipe, a branch, a rewind, a new compaction) is rebuilt in full.
    The messages are shared between calls and must be treated as read-only (as with *cache*).

    *amended* is the tree's list of ids changed in place (:meth:`SessionTree.amend`): their converted
    messages are forgotten and the context is rebuilt (from the memo, converting only those).
    """

    def __init__(self) -> None:
        self.cache: dict[str, ContextMessage] = {}
        self._end: Entry | None = None
        self._length = 0
        self._messages: list[ContextMessage] = []
        self._amended: list[str] | None = None  # the tree's list last seen, and how much of it
        self._amends_seen = 0

    def _forget_amended(self, amended: list[str] | None) -> bool:
        """Drop the messages of entries amended since the last build; True when any was."""
        if amended is None:
            return False
        if amended is not self._amended:  # another tree (the file read again): all of its list
            self._amended, self._amends_seen = amended, 0
        new = amended[self._amends_seen :]
        self._amends_seen = len(amended)
        for entry_id in new:
            self.cache.pop(entry_id, None)
        return bool(new)

    def build(self, path: Sequence[Entry], amended: list[str] | None = None) -> list[ContextMessage]:
        known = self._length
        if (
            not self._forget_amended(amended)
            and known
            and len(path) >= known
            and path[known - 1] is self._end
            and all(entry.type != "compaction" for entry in path[known:])
        ):
            memo = self.cache
            for entry in path[known:]:
                if entry.type == "message":
                    found = memo.get(entry.id)
                    if found is None:
                        found = memo[entry.id] = context_message(entry)
                    self._messages.append(found)
                elif entry.type == "custom" and _shown_text(entry) is not None:
                    _with_shown_texts(self._messages, [entry])
        else:
            self._messages = build_context(path, self.cache)
        self._length = len(path)
        self._end = path[-1] if path else None
        return list(self._messages)
