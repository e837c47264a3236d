"""A chat's variables for the fronts: ``pear vars show``, the page model and ``pear chat``'s status line.

Read from the session tree (:mod:`peargarden.sessions.variables`) the way the SillyTavern export
writes them: SillyTavern's message numbers (0 = the greeting; a reply's tool rounds are one message),
one record per swipe.  A chat MVU keeps whose greeting was not seeded yet (its first beat writes the
seed) shows the seed the first beat will write, so a new chat's variables are there from the start.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.errors import BadInput
from peargarden.modes.chat_variables import card_books, greeting_seed, mvu_active
from peargarden.modes.tavern.sources import card_worlds
from peargarden.modes.tavern.variables import schema_for
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import export_chat
from peargarden.sessions.tree import SessionTree
from peargarden.sessions.variables import (
    MESSAGE_VARIABLES_TYPE,
    chat_metadata,
    chat_variables,
    customs_as_data,
    message_notes,
)
from peargarden.variables.history import is_mvu_data
from peargarden.variables.jsvalues import json_stringify
from peargarden.variables.marks import Lorebook
from peargarden.variables.script_budget import ScriptBudget
from peargarden.variables.yaml_dump import yaml_stringify
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.config import Settings, load_settings
from peargarden.workspace.home import Home
from peargarden.workspace.remote_modules import pinned_sources
from peargarden.workspace.script_allowance import scripts_allowance

from .chat_records import ChatRecord

if TYPE_CHECKING:
    from peargarden.variables.zod_schema import MvuSchema

__all__ = [
    "ChatVariables",
    "MessageVariables",
    "branch_variables",
    "card_keeps_variables",
    "chat_variables_of",
    "latest_record",
    "latest_records",
    "record_yaml",
    "status_line",
    "stored_variables",
]


class MessageVariables(msgspec.Struct, frozen=True):
    """One SillyTavern message's variables: a record per swipe (``None``: that swipe has none)."""

    index: int
    role: str  # "user" or "assistant"
    swipe_id: int
    swipes: list[dict[str, Any] | None]
    # SillyTavern's message has a ``variables`` list (a script may have left every record empty,
    # ``[{}]``, which TavernHelper reads back as such, not as no variables).
    kept: bool = False

    @property
    def current(self) -> dict[str, Any] | None:
        """The record of the swipe shown (TavernHelper's ``variables[swipe_id]``)."""
        return self.swipes[self.swipe_id] if 0 <= self.swipe_id < len(self.swipes) else None

    def to_json(self) -> dict[str, Any]:
        return {"message": self.index, "role": self.role, "swipe_id": self.swipe_id,
                "variables": self.current, "swipes": self.swipes}  # fmt: skip


class ChatVariables(msgspec.Struct):
    """Every message's variables on the active branch and the chat's variables."""

    messages: list[MessageVariables]
    chat: dict[str, Any] = msgspec.field(default_factory=dict)
    mvu: bool = False  # MVU keeps this chat's variables
    # What could not be read for them (a broken or oversized [initvar] entry, named).
    warnings: list[str] = msgspec.field(default_factory=list)

    def message(self, index: int | None) -> MessageVariables:
        """Message *index* (``None``: the last one); a clear error for a number the chat lacks."""
        if not self.messages:
            raise BadInput("这段对话还没有消息（no messages）")
        if index is None:
            return self.messages[-1]
        if not 0 <= index < len(self.messages):
            raise BadInput(f"没有第 {index} 条消息（共 {len(self.messages)} 条，从 0 数起）")
        return self.messages[index]

    def in_force(self) -> dict[str, Any] | None:
        """The record the next request reads (TavernHelper's default message): the latest one."""
        for message in reversed(self.messages):
            if message.current is not None:
                return message.current
        return None


def _swipe_records(line: Mapping[str, Any]) -> list[dict[str, Any] | None]:
    records = line.get("variables")
    swipes = line.get("swipes")
    count = len(swipes) if isinstance(swipes, list) and swipes else 1
    if not isinstance(records, list):
        return [None] * count
    out = [record if isinstance(record, dict) and record else None for record in records]
    return out + [None] * (count - len(out))


def branch_variables(tree: SessionTree, header: Mapping[str, Any]) -> ChatVariables:
    """The records of a chat's active branch as its SillyTavern export numbers the messages (one line
    per reply, a group's too); ``mvu`` says whether any record is MVU's."""
    st_header = header.get("st_header")
    lines = export_chat(tree, dict(st_header) if isinstance(st_header, dict) else {}, "", "")
    messages = []
    for index, line in enumerate(lines[1:]):
        swipe = line.get("swipe_id")
        messages.append(MessageVariables(index, "user" if line.get("is_user") else "assistant",
                                         swipe if isinstance(swipe, int) else 0, _swipe_records(line),
                                         isinstance(line.get("variables"), list)))  # fmt: skip
    metadata = chat_metadata(customs_as_data(tree.path()), st_header if isinstance(st_header, dict) else None)
    result = ChatVariables(messages, chat_variables(metadata))
    result.mvu = any(is_mvu_data(record) for m in messages for record in m.swipes)
    return result


def card_keeps_variables(folder: CardFolder, settings: Settings) -> tuple[bool, list[Lorebook]]:
    """Whether MVU keeps the variables of the card's chats (its books call for it and the user did not
    say no to its scripts), and its books as MVU reads them."""
    worlds, order = card_worlds(folder.home, folder, settings, folder.load_card())
    books = card_books(worlds, order)
    return mvu_active(scripts_allowance(folder), books), books


def chat_variables_of(
    tree: SessionTree, header: Mapping[str, Any], folder: CardFolder, settings: Settings
) -> ChatVariables:
    """The variables of a chat's active branch (see the module docstring)."""
    result = branch_variables(tree, header)
    has_mvu = result.mvu
    active, books = card_keeps_variables(folder, settings)
    result.mvu = has_mvu or active
    if result.mvu and not has_mvu and books:
        extensions = folder.load_card().data.get("extensions")
        budget = ScriptBudget(time.thread_time)  # reading the page is a use of its own
        schema = schema_for(folder.home, extensions, settings.preset, budget, pinned_sources(folder))
        _seed_greeting(result, tree, books, schema)
    return result


def _seed_greeting(result: ChatVariables, tree: SessionTree, books: Sequence[Any], schema: MvuSchema | None) -> None:
    """The greeting's seed, as the first beat will write it (every greeting swipe its own)."""
    first = next((i for i, m in enumerate(result.messages) if m.role == "assistant"), None)
    entries = [e for e in tree.messages() if e.role in ("user", "assistant")]
    if first is None or not entries or entries[0].role != "assistant":
        return
    kin = tree.siblings(entries[0].id)
    records, result.warnings = greeting_seed([str(e.message.get("content") or "") for e in kin], books, schema)
    old = result.messages[first]
    result.messages[first] = MessageVariables(old.index, old.role, kin.index(entries[0]), list(records))


def stored_variables(home: Home, record: ChatRecord) -> ChatVariables:
    """``pear vars show``: the variables of a stored chat (``chat_records.find_chat``)."""
    settings = record.folder.effective_settings(load_settings(home.config_file))
    return chat_variables_of(record.chat.tree, record.chat.header, record.folder, settings)


def record_yaml(record: Mapping[str, Any] | None) -> str:
    """A record's ``stat_data`` as ``{{format_message_variable::stat_data}}`` shows it to the model."""
    if not record:
        return ""
    data = record.get("stat_data", record)
    return yaml_stringify(data).rstrip() if data else ""


def _leaves(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [leaf for key, item in value.items() if not str(key).startswith("$")
                for leaf in _leaves(item, f"{prefix}{key}.")]  # fmt: skip
    described = isinstance(value, list) and len(value) == 2 and isinstance(value[1], str)
    if described and not isinstance(value[0], (dict, list)):
        return [(prefix[:-1], value[0])]  # MVU's [value, "description"] leaf
    return [(prefix[:-1], value)]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json_stringify(value) or "null"


STATUS_WIDTH = 160


def latest_record(tree: SessionTree) -> dict[str, Any] | None:
    """The record in force on the branch (the latest message's), read from the notes alone: cheap
    after every beat of a long chat."""
    return latest_records(tree)[0]


def latest_records(tree: SessionTree) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The latest message's record on the branch and the one of the message before it (each ``None``
    when there is none)."""
    notes = tree.customs(MESSAGE_VARIABLES_TYPE)
    if not notes:
        return None, None
    on_path = {entry.id for entry in tree.messages()}
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry in reversed(notes):
        data = entry.body.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("variables"), dict):
            continue
        message = data.get("message")
        if message in on_path and message not in seen:  # a message's latest note is its record
            seen.add(message)
            found.append(dict(data["variables"]))
            if len(found) == 2:
                break
    return (found[0] if found else None), (found[1] if len(found) > 1 else None)


def status_line(
    record: Mapping[str, Any] | None, width: int = STATUS_WIDTH, before: Mapping[str, Any] | None = None
) -> str | None:
    """One compact line of the variables in force, the ones the last reply changed marked ``*``
    (``None``: the chat keeps no variables).  Classic MVU says what changed in ``delta_data``; a zod
    card's record has none, so its values are compared with *before* (the record of the message
    before the reply)."""
    if record is None or not isinstance(record.get("stat_data"), dict) or not record["stat_data"]:
        return None
    leaves = _leaves(record["stat_data"])
    if "delta_data" in record or before is None or not isinstance(before.get("stat_data"), dict):
        changed = {path for path, _ in _leaves(record.get("delta_data") or {})}
    else:
        earlier = dict(_leaves(before["stat_data"]))
        changed = {path for path, value in leaves if path not in earlier or earlier[path] != value}
    parts = [f"{path}={_text(value)}{'*' if path in changed else ''}" for path, value in leaves]
    line = "【变量】" + " · ".join(parts)
    return line if len(line) <= width else line[: width - 1] + "…"


def row_variables(tree: SessionTree, entries: Sequence[Entry]) -> dict[str, dict[str, Any]]:
    """The record each of *entries* holds on the branch (by entry id), for the page's rows."""
    notes = message_notes(tree.path())
    wanted = {entry.id for entry in entries}
    return {key: note["variables"] for key, note in notes.items()
            if key in wanted and isinstance(note.get("variables"), dict)}  # fmt: skip
