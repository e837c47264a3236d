"""TavernHelper's chat messages: ``getChatMessages``, ``setChatMessages``, ``createChatMessages``,
``deleteChatMessages``, ``rotateChatMessages`` on SillyTavern's message dicts.

Read from TavernHelper 4.9.3's ``function/chat_message.ts`` for behaviour, and checked against the
recordings: a message's ``data`` is its variables of the current swipe, ``extra`` the current
swipe's ``swipe_info`` entry (so a message SillyTavern drew shows ``{send_date, extra}``), a range is
clamped rather than refused (``'10-12'`` of six messages is the last one).

SillyTavern 1.18 draws a character's message (``addOneMessage``) and in doing so gives it
``swipes``/``swipe_id``/``swipe_info`` when it has none: :func:`drawn` does that step, for the
hosts that draw messages as SillyTavern does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from peargarden.variables.jsvalues import UNDEFINED, clone

from .host import Emit, ScriptError
from .variables import per_swipe_tables

NARRATOR = "narrator"
_ONE = re.compile(r"^(-?\d+)$")
_TWO = re.compile(r"^(-?\d+)-(-?\d+)$")


def _given(value: Any) -> bool:
    """JavaScript's ``value ?? …`` keeps it: neither ``null`` nor ``undefined``."""
    return value is not None and value is not UNDEFINED


def _first(*values: Any) -> Any:
    """``a ?? b ?? …``."""
    return next((value for value in values if _given(value)), UNDEFINED)


def drawn(message: dict[str, Any]) -> None:
    """What drawing a message leaves on it: ``extra`` always; a character's or narrator's message
    also its swipes (``swipes``, ``swipe_id``, ``swipe_info``, in that order, as SillyTavern 1.18
    adds them), the one swipe's info carrying the message's dates and a copy of its ``extra``."""
    if not isinstance(message.get("extra"), dict):
        message["extra"] = {}
    if message.get("is_user"):
        return
    if not isinstance(message.get("swipes"), list):
        message["swipes"] = [message.get("mes", "")]
    if "swipe_id" not in message:
        message["swipe_id"] = 0
    if not isinstance(message.get("swipe_info"), list):
        info: dict[str, Any] = {k: message[k] for k in ("send_date", "gen_started", "gen_finished") if k in message}
        info["extra"] = clone(message["extra"])
        message["swipe_info"] = [info]


def string_to_range(text: str, last: int) -> tuple[int, int] | None:
    """TavernHelper's own ``string_to_range(input, 0, last)``: ``N`` or ``A-B``, negatives counted
    from the end, both ends clamped into ``0..last`` and sorted."""

    def clamp(value: int) -> int:
        return max(0, min(last, last + value + 1 if value < 0 else value))

    one = _ONE.match(text)
    if one:
        start = end = clamp(int(one.group(1)))
        return start, end
    two = _TWO.match(text)
    if not two:
        return None
    start, end = sorted((clamp(int(two.group(1))), clamp(int(two.group(2)))))
    return start, end


def role_of(message: dict[str, Any]) -> str:
    extra = message.get("extra")
    if isinstance(extra, dict) and extra.get("type") == NARRATOR:
        return "unknown" if message.get("is_user") else "system"
    return "user" if message.get("is_user") else "assistant"


def _padded(values: Any, length: int, empty: Callable[[], Any]) -> list[Any]:
    items = values if isinstance(values, list) else []
    return [items[i] if i < len(items) and items[i] is not None and items[i] is not UNDEFINED else empty()
            for i in range(length)]  # fmt: skip


def _view(message: dict[str, Any], message_id: int, include_swipes: bool) -> dict[str, Any]:
    swipe_id = _first(message.get("swipe_id"), 0)
    swipes_raw = _first(message.get("swipes"), [message.get("mes", UNDEFINED)])
    length = len(swipes_raw) if isinstance(swipes_raw, list) else 0
    swipes = _padded(swipes_raw, length, str)
    swipes_data = _padded(_first(message.get("variables"), [{}]), length, dict)
    swipes_info = _padded(_first(message.get("swipe_info"), [_first(message.get("extra"), {})]), length, dict)
    view: dict[str, Any] = {
        "message_id": message_id,
        "name": message.get("name", UNDEFINED),
        "role": role_of(message),
        "is_hidden": message.get("is_system", UNDEFINED),
    }
    if include_swipes:
        view.update(swipe_id=swipe_id, swipes=swipes, swipes_data=swipes_data, swipes_info=swipes_info)
        return dict(clone(view))
    index = swipe_id if isinstance(swipe_id, int) and 0 <= swipe_id < length else None
    view.update(
        message=_first(message.get("mes"), ""),
        data=swipes_data[index] if index is not None else UNDEFINED,
        extra=swipes_info[index] if index is not None else UNDEFINED,
        swipe_id=swipe_id,
        swipes=swipes,
        swipes_data=swipes_data,
    )
    return dict(clone(view))


def get_chat_messages(
    chat: list[dict[str, Any]], range_text: str, options: Any, expand: Callable[[str], str]
) -> list[dict[str, Any]]:
    """``getChatMessages(range, {role, hide_state, include_swipes})``."""
    options = options if isinstance(options, dict) else {}
    role = options.get("role") or "all"
    hide_state = options.get("hide_state") or "all"
    bounds = string_to_range(expand(range_text), len(chat) - 1)
    if bounds is None:
        return []
    out = []
    for message_id in range(bounds[0], bounds[1] + 1):
        if not 0 <= message_id < len(chat):
            continue
        message = chat[message_id]
        if role != "all" and role_of(message) != role:
            continue
        if hide_state != "all" and (hide_state == "hidden") != message.get("is_system"):
            continue
        out.append(_view(message, message_id, bool(options.get("include_swipes"))))
    return out


def _normalize(chat: list[dict[str, Any]], message_id: Any) -> int:
    index = int(message_id) if isinstance(message_id, int | float) and not isinstance(message_id, bool) else -(10**9)
    return index + len(chat) if index < 0 else index


def set_chat_messages(chat: list[dict[str, Any]], changes: Any) -> list[int]:
    """``setChatMessages``: each change merged into its message (changes of one id merged first,
    in id order); the ids changed."""
    if not isinstance(changes, list):
        raise ScriptError("setChatMessages 需要一个数组")
    merged: dict[int, dict[str, Any]] = {}
    for change in changes:
        if not isinstance(change, dict):
            continue
        index = _normalize(chat, change.get("message_id"))
        merged.setdefault(index, {}).update({**change, "message_id": index})
    touched = []
    for index in sorted(merged):
        if 0 <= index < len(chat):
            _modify(chat[index], merged[index])
            touched.append(index)
    return touched


def _modify(message: dict[str, Any], change: dict[str, Any]) -> None:
    if isinstance(message.get("variables"), dict):
        per_swipe_tables(message)
    if "name" in change:
        message["name"] = change["name"]
    if "role" in change:
        message["is_user"] = change["role"] == "user"
        extra = message.get("extra")
        if change["role"] == "system":
            if not isinstance(extra, dict):
                message["extra"] = extra = {}
            extra["type"] = NARRATOR
        elif isinstance(extra, dict):
            extra.pop("type", None)
    if "is_hidden" in change:
        message["is_system"] = change["is_hidden"]
    if "message" in change or "data" in change:
        _modify_text(message, change)
    elif any(key in change for key in ("swipe_id", "swipes", "swipes_data", "swipes_info")):
        _modify_swipes(message, change)


def _modify_text(message: dict[str, Any], change: dict[str, Any]) -> None:
    # A change arrives as JSON: a member JavaScript left ``undefined`` is absent here.
    swipe = _first(message.get("swipe_id"), 0)
    if "message" in change:
        message["mes"] = change["message"]
        if "swipes" in message and isinstance(message["swipes"], list):
            _put(message["swipes"], message.get("swipe_id"), change["message"])
    if "data" in change:
        if "variables" not in message:
            message["variables"] = [{} for _ in range(_count(message))]
        _put(message["variables"], swipe, change["data"])
    if "extra" in change:
        # TavernHelper checks ``swipes_info`` (a name messages never have) before making swipe_info.
        message["swipe_info"] = [{} for _ in range(_count(message))]
        message["extra"] = change["extra"]
        _put(message["swipe_info"], swipe, change["extra"])


def _count(message: dict[str, Any]) -> int:
    swipes = message.get("swipes")
    return len(swipes) if isinstance(swipes, list) else 1


def _put(items: list[Any], index: Any, value: Any) -> None:
    """``_.set(list, [index], value)``: holes up to the index."""
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        return
    while len(items) <= index:
        items.append(None)
    items[index] = value


def _modify_swipes(message: dict[str, Any], change: dict[str, Any]) -> None:
    lengths = [len(change[k]) for k in ("swipes", "swipes_data", "swipes_info") if isinstance(change.get(k), list)]
    length = max(lengths) if lengths else _count(message)
    wanted = _first(change.get("swipe_id"), message.get("swipe_id"), 0)
    swipe_id = max(0, min(length - 1, int(wanted) if isinstance(wanted, int | float) else 0))
    swipes = _first(change.get("swipes"), message.get("swipes"), [message.get("mes", UNDEFINED)])
    data = _first(change.get("swipes_data"), message.get("variables"), [{}])
    info = _first(change.get("swipes_info"), message.get("swipe_info"), [{}])
    swipes = _padded(swipes, length, str)
    message["swipes"] = swipes
    message["variables"] = _padded(data, length, dict)
    message["swipe_info"] = _padded(info, length, dict)
    message["swipe_id"] = swipe_id
    message["mes"] = swipes[swipe_id]
    message["extra"] = message["swipe_info"][swipe_id]


def created(item: Any, user_name: str, char_name: str) -> dict[str, Any]:
    """One ``createChatMessages`` item as the message SillyTavern stores."""
    if not isinstance(item, dict):
        raise ScriptError("createChatMessages 的每一项都必须是对象")
    role = item.get("role")
    message: dict[str, Any] = {}
    if "name" in item:
        message["name"] = item["name"]
    else:
        message["name"] = "system" if role == "system" else user_name if role == "user" else char_name
    message["is_user"] = role == "user"
    if role == "system":
        message["extra"] = {"type": NARRATOR}
    message["is_system"] = _first(item.get("is_hidden"), False)
    message["mes"] = item.get("message", UNDEFINED)
    if item.get("data"):
        message["variables"] = [item["data"]]
    if item.get("extra"):
        message["extra"] = item["extra"]
    return message


def create_chat_messages(
    chat: list[dict[str, Any]], items: Any, options: Any, names: tuple[str, str], emit: Emit
) -> None:
    """``createChatMessages(items, {insert_before | insert_at, refresh})``: inserted; unless
    ``refresh: 'none'``, drawn, and for each a ``MESSAGE_SENT``/``MESSAGE_RECEIVED`` (``'extension'``)
    then its ``…_RENDERED`` event."""
    if not isinstance(items, list):
        raise ScriptError("createChatMessages 需要一个数组")
    options = options if isinstance(options, dict) else {}
    where = _first(options.get("insert_at"), options.get("insert_before"), "end")
    if where == "end" or not isinstance(where, int | float) or isinstance(where, bool):
        before = len(chat)
    else:
        before = max(-len(chat), min(len(chat), int(where)))
    converted = [created(item, *names) for item in items]
    at = before + len(chat) if before < 0 else before
    chat[at:at] = converted
    refresh = options.get("refresh", "affected")
    if refresh == "none":
        return
    for index, message in enumerate(converted):
        drawn(message)
        if refresh == "all":  # the chat is drawn again; no message events
            continue
        # TavernHelper numbers the events ``before - count + index + 1``: right for one message or
        # an insertion, one place short per extra message at the end (as recorded by its code).
        message_id = before - len(converted) + index + 1
        user = bool(message.get("is_user"))
        emit("message_sent" if user else "message_received", [message_id, "extension"])
        emit("user_message_rendered" if user else "character_message_rendered", [message_id])


def delete_chat_messages(chat: list[dict[str, Any]], message_ids: Any) -> list[int]:
    """``deleteChatMessages(ids)``: ids in range (negative from the end), each once; the ids removed."""
    if not isinstance(message_ids, list):
        raise ScriptError("deleteChatMessages 需要一个数组")
    length = len(chat)
    ids = sorted({_normalize(chat, i) for i in message_ids
                  if isinstance(i, int | float) and not isinstance(i, bool) and -length <= i < length})  # fmt: skip
    for index in reversed(ids):
        del chat[index]
    return ids


def rotate_chat_messages(chat: list[dict[str, Any]], begin: Any, middle: Any, end: Any) -> None:
    """``rotateChatMessages(begin, middle, end)``: ``[middle, end)`` moved before ``begin``."""
    size = len(chat)
    start = max(0, min(size, _normalize(chat, begin)))
    stop = max(0, min(size, _normalize(chat, end)))
    pivot = max(start, min(stop, _normalize(chat, middle)))
    moved = chat[pivot:stop]
    del chat[pivot:stop]
    chat[start:start] = moved


__all__ = [
    "create_chat_messages",
    "created",
    "delete_chat_messages",
    "drawn",
    "get_chat_messages",
    "role_of",
    "rotate_chat_messages",
    "set_chat_messages",
    "string_to_range",
]
