"""Which message's variables are in force: TavernHelper's ``chat[i].variables[swipe_id]`` read over a chat.

Every message keeps one variables record per swipe; the one in force is that of the message's
current swipe.  A record is MVU's when it has both ``stat_data`` and ``schema``.  A reply is
applied to the last MVU record *before* it (MVU's ``getLastValidVariable``): so after a swipe the
new reply starts from the message before, not from the swipe it replaces.  Messages are mappings
shaped like SillyTavern's (``swipe_id``, ``variables``: a list indexed by swipe), so a chat file's
lines and the session tree's messages both fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from peargarden.variables.jsvalues import UNDEFINED, clone


def swipe_variables(message: Mapping[str, Any]) -> Any:
    """``message.variables[message.swipe_id ?? 0]``, or ``UNDEFINED``."""
    records = message.get("variables")
    swipe = message.get("swipe_id")
    index = swipe if isinstance(swipe, int) and not isinstance(swipe, bool) else 0
    if isinstance(records, list) and 0 <= index < len(records):
        return records[index]
    if isinstance(records, dict):
        # A chat file may keep the per-swipe list as an object keyed by swipe number.
        return records.get(str(index), UNDEFINED)
    return UNDEFINED


def is_mvu_data(record: Any) -> bool:
    """MVU's ``isMvuData``: a record with ``stat_data`` and ``schema``."""
    return (
        isinstance(record, dict)
        and record.get("stat_data", UNDEFINED) is not UNDEFINED
        and record.get("schema", UNDEFINED) is not UNDEFINED
    )


def last_valid_message_id(chat: Sequence[Mapping[str, Any]], end_message_id: int) -> int:
    """The last message before ``end_message_id`` whose current swipe holds MVU variables, or -1."""
    for index in range(min(end_message_id, len(chat)) - 1, -1, -1):
        if is_mvu_data(swipe_variables(chat[index])):
            return index
    return -1


def last_valid_variables(chat: Sequence[Mapping[str, Any]], end_message_id: int) -> Any:
    """A copy of the variables a reply at ``end_message_id`` starts from, or ``UNDEFINED``."""
    index = last_valid_message_id(chat, end_message_id)
    if index == -1:
        return UNDEFINED
    record = swipe_variables(chat[index])
    return clone(record if record is not UNDEFINED else {})


def variables_at(chat: Sequence[Mapping[str, Any]], message_id: int | None = None) -> Any:
    """The variables a message holds: its current swipe's record (``{}`` when it has none).

    ``message_id=None`` is TavernHelper's default for ``{{get_message_variable::…}}``: the last
    message whose current swipe has a record.  Negative ids count from the end, as in TavernHelper.
    """
    if message_id is None:
        for index in range(len(chat) - 1, -1, -1):
            record = swipe_variables(chat[index])
            if isinstance(record, dict):
                return record
        return {}
    index = message_id + len(chat) if message_id < 0 else message_id
    if not 0 <= index < len(chat):
        raise IndexError(f"no message {message_id}")
    record = swipe_variables(chat[index])
    return record if isinstance(record, dict) else {}
