"""MVU's ``handleVariablesInMessage``: a finished message turned into the variables it leaves behind.

The message's commands are applied to the variables in force before it; the result is written to
the message's current swipe (and to the chat's variables when MVU's "更新到聊天变量" is on), keeping
what else those records held.  A reply (not the user's own message) gets the status placeholder
``<StatusPlaceHolderImpl/>`` appended, which the card's regex turns into its status bar, and loses
any ``<status_current_variable>`` block the model echoed back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from peargarden.variables.history import last_valid_variables, swipe_variables
from peargarden.variables.jsvalues import UNDEFINED, clone
from peargarden.variables.update import AfterUpdate, update_variables
from peargarden.variables.zod_schema import MvuSchema

STATUS_PLACEHOLDER = "<StatusPlaceHolderImpl/>"
_ECHOED_STATUS = re.compile(r"<(status_current_variable)>(?:(?!<\1>).)*</\1?>", re.IGNORECASE | re.DOTALL)
_WRITTEN_KEYS = ("initialized_lorebooks", "stat_data", "schema", "display_data", "delta_data")


class MessageOutcome(msgspec.Struct):
    """What handling one message writes: the swipe's variables, maybe the chat's, maybe the text."""

    message_variables: dict[str, Any]
    chat_variables: dict[str, Any] | None = None
    message_text: str | None = None
    modified: bool = False
    warnings: list[str] = msgspec.field(default_factory=list)


def write_record(existing: Any, variables: Mapping[str, Any]) -> dict[str, Any]:
    """MVU's updater: ``existing`` with MVU's five keys set from ``variables`` (others kept, in place)."""
    record = clone(existing) if isinstance(existing, dict) else {}
    record["initialized_lorebooks"] = clone(variables.get("initialized_lorebooks", UNDEFINED))
    record["stat_data"] = clone(variables.get("stat_data", UNDEFINED))
    for key in _WRITTEN_KEYS[2:]:
        value = variables.get(key, UNDEFINED)
        if value is UNDEFINED:
            record.pop(key, None)
        else:
            record[key] = clone(value)
    return record


def with_status_placeholder(text: str) -> str:
    """A reply as MVU leaves it: the placeholder appended once, an echoed status block removed."""
    if STATUS_PLACEHOLDER not in text:
        text += "\n\n" + STATUS_PLACEHOLDER
    if "<status_current_variable>" in text:
        text = _ECHOED_STATUS.sub("", text)
    return text


def without_status_placeholder(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The request's messages as MVU sends them (its prompt filter on
    ``CHAT_COMPLETION_SETTINGS_READY``): in each text message that holds the placeholder, every
    ``"\n<StatusPlaceHolderImpl/>"`` is taken out — a newline and the tag, exactly (the blank line
    before it stays, and a placeholder at the very start stays)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str) and STATUS_PLACEHOLDER in content:
            message = {**message, "content": content.replace("\n" + STATUS_PLACEHOLDER, "")}
        out.append(dict(message))
    return out


def _role(message: Mapping[str, Any]) -> str:
    if message.get("is_user"):
        return "user"
    return "system" if message.get("is_system") else "assistant"


def handle_variables_in_message(
    chat: Sequence[Mapping[str, Any]],
    message_id: int,
    *,
    chat_variables: Mapping[str, Any] | None = None,
    update_chat_variables: bool = False,
    expand_macros: Callable[[str], str] | None = None,
    after_update: AfterUpdate | None = None,
    utc_offset_minutes: int = 0,
    start: Mapping[str, Any] | None = None,
    schema: MvuSchema | None = None,
) -> MessageOutcome | None:
    """Handle ``chat[message_id]`` as MVU does when it is received (``None``: MVU leaves it alone).

    *start*: the variables to apply the message to instead of the last ones before it (the stage's
    tool already changed them during the beat); *schema*: the card's registered zod schema."""
    if not 0 <= message_id < len(chat):
        return None
    message = chat[message_id]
    text = str(message.get("mes", ""))
    role = _role(message)
    if role == "assistant" and len(text.encode("utf-16-le")) // 2 < 5:
        return None
    before = 1 if message_id == 0 else message_id
    variables = clone(dict(start)) if start is not None else last_valid_variables(chat, before)
    if not isinstance(variables, dict) or "stat_data" not in variables:
        return None
    result = update_variables(
        text,
        variables,
        expand_macros=expand_macros,
        after_update=after_update,
        utc_offset_minutes=utc_offset_minutes,
        schema=schema,
    )
    outcome = MessageOutcome(
        message_variables=write_record(swipe_variables(message), variables),
        modified=result.modified,
        warnings=result.warnings,
    )
    if result.modified and update_chat_variables:
        outcome.chat_variables = write_record(chat_variables or {}, variables)
    if role != "user":
        outcome.message_text = with_status_placeholder(text)
    return outcome
