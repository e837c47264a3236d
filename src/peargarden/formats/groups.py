"""SillyTavern group files (``groups/<id>.json``) and the group fields of group-chat messages.

A group file is one JSON object written by ``JSON.stringify(group, null, 4)`` without a final
newline; it is kept as its raw dict, so unknown fields (and the ones the front end adds when it
saves: ``date_added``, ``create_date``, ``date_last_chat``, ``chat_size``) survive, and a file
read and written again keeps its bytes.

A group chat (``group chats/<chat_id>.jsonl``) is an ordinary chat file
(:func:`peargarden.formats.read_chat_jsonl`) with the 1.18 header
``{"chat_metadata":{…},"user_name":"unused","character_name":"unused"}``; its bot messages say who
spoke (``original_avatar``: the member's avatar file name), carry the member's picture
(``force_avatar``: ``/thumbnail?type=avatar&file=<url-encoded file>``) and the round they belong
to (``extra.gen_id``: one id shared by the replies to one message, which Regenerate deletes
together).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import msgspec

from peargarden.errors import FormatError

from ._common import JsonObject, escape_lone_surrogates, parse_json_bytes

ACTIVATION_STRATEGIES = {0: "natural", 1: "list", 2: "manual", 3: "pooled"}
GENERATION_MODES = {0: "swap", 1: "append", 2: "append_disabled"}

# What SillyTavern's "create group" writes, in its key order (``createGroup``).
_NEW_GROUP_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("avatar_url", "img/ai4.png"),
    ("allow_self_responses", False),
    ("hideMutedSprites", False),
    ("activation_strategy", 0),
    ("generation_mode", 0),
    ("disabled_members", []),
    ("fav", False),
)


class GroupFile(msgspec.Struct):
    """A group file over its raw dict (key order and unknown keys survive a round-trip)."""

    raw: JsonObject

    def _text(self, key: str) -> str:
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""

    def _strings(self, key: str) -> list[str]:
        value = self.raw.get(key)
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    @property
    def id(self) -> str:
        value = self.raw.get("id")
        return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""

    @property
    def name(self) -> str:
        return self._text("name")

    @property
    def members(self) -> list[str]:
        return self._strings("members")

    @property
    def disabled_members(self) -> list[str]:
        return self._strings("disabled_members")

    @property
    def chat_id(self) -> str:
        return self._text("chat_id")

    @property
    def chats(self) -> list[str]:
        return self._strings("chats")

    @property
    def activation_strategy(self) -> int:
        value = self.raw.get("activation_strategy")
        return value if isinstance(value, int) and value in ACTIVATION_STRATEGIES else 0

    @property
    def generation_mode(self) -> int:
        value = self.raw.get("generation_mode")
        return value if isinstance(value, int) and value in GENERATION_MODES else 0


def _check(obj: JsonObject, filename: str) -> None:
    members = obj.get("members")
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise FormatError(
            "群聊文件的 members 必须是角色文件名的列表（'members' must be a list of names）", path=filename
        )
    ident = obj.get("id")
    if not isinstance(ident, str | int) or isinstance(ident, bool) or ident == "":
        raise FormatError("群聊文件缺少 id（group file without 'id'）", path=filename)
    for key in ("disabled_members", "chats"):
        value = obj.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise FormatError(f"群聊文件的 {key} 必须是文字列表（'{key}' must be a list of strings）", path=filename)
    for key, known in (("activation_strategy", ACTIVATION_STRATEGIES), ("generation_mode", GENERATION_MODES)):
        value = obj.get(key)
        if value is not None and (isinstance(value, bool) or value not in known):
            choices = "、".join(f"{k}={v}" for k, v in known.items())
            raise FormatError(f"群聊文件的 {key} 只能是 {choices}，收到 {value!r}", path=filename)
    for key in ("name", "chat_id", "generation_mode_join_prefix", "generation_mode_join_suffix"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise FormatError(f"群聊文件的 {key} 不是文字（'{key}' is not text）", path=filename)


def is_group_object(obj: JsonObject) -> bool:
    """A group file's object: ``members`` and at least one field only groups have."""
    return "members" in obj and any(
        k in obj for k in ("activation_strategy", "generation_mode", "disabled_members", "chat_id")
    )


def read_group(data: bytes, filename: str) -> GroupFile:
    """Parse a group file; ``FormatError`` names the file and the field that is wrong."""
    obj = parse_json_bytes(data, filename, "群聊 JSON ")
    _check(obj, filename)
    return GroupFile(obj)


def write_group(group: GroupFile) -> bytes:
    """The file as SillyTavern writes it: 4-space indent, non-ASCII as is, no final newline."""
    return js_pretty(group.raw).encode("utf-8")


def new_group(group_id: str, name: str, members: list[str], *, chat_id: str, **fields: Any) -> GroupFile:
    """A group as SillyTavern's "create group" writes it; ``fields`` override the defaults."""
    raw: JsonObject = {"id": group_id, "name": name, "members": list(members)}
    for key, default in _NEW_GROUP_DEFAULTS:
        raw[key] = json.loads(json.dumps(default))
    raw["chat_id"] = chat_id
    raw["chats"] = [chat_id]
    raw["auto_mode_delay"] = 5
    raw["generation_mode_join_prefix"] = ""
    raw["generation_mode_join_suffix"] = ""
    raw.update(fields)
    return GroupFile(raw)


def js_number_text(value: float) -> str:
    """A number as JavaScript prints it (``Number.prototype.toString``, which JSON uses): the
    shortest digits that read back, positional from 1e-6 up to 1e21, else ``1.5e+21`` / ``1e-7``."""
    if math.isnan(value) or math.isinf(value):
        return "null"  # what JSON.stringify writes for them
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    point = exponent + len(digit_tuple)  # value = 0.<digits> × 10^point
    minus = "-" if sign else ""
    if len(digits) <= point <= 21:
        return minus + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return minus + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return minus + "0." + "0" * -point + digits
    power = point - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{minus}{mantissa}e{'+' if power > 0 else '-'}{abs(power)}"


def js_pretty(value: Any, indent: str = "    ") -> str:
    """``JSON.stringify(value, null, 4)``: non-ASCII as is, JavaScript's numbers, lone
    surrogates as ``\\udXXX``."""
    return escape_lone_surrogates(_pretty(value, indent, ""))


def _pretty(value: Any, indent: str, pad: str) -> str:
    if value is None or value is True or value is False:
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number_text(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    inner = pad + indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = (
            f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_pretty(v, indent, inner)}" for k, v in value.items()
        )
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + _pretty(v, indent, inner) for v in value) + "\n" + pad + "]"
    raise TypeError(f"not JSON: {type(value).__name__}")


# -- group chats -------------------------------------------------------------------------------


def avatar_thumbnail(avatar: str) -> str:
    """``force_avatar`` of a member's message: ``getThumbnailUrl('avatar', file)``."""
    return "/thumbnail?type=avatar&file=" + quote(avatar, safe="!'()*")


def greeting_message(name: str, avatar: str, mes: str, *, send_date: str, gen_id: Any) -> JsonObject:
    """A member's greeting in a new group chat, with SillyTavern's keys in its order."""
    return {
        "is_user": False,
        "is_system": False,
        "name": name,
        "send_date": send_date,
        "original_avatar": avatar,
        "extra": {"gen_id": gen_id},
        "mes": mes,
        "force_avatar": avatar_thumbnail(avatar),
    }


def reply_message(
    name: str,
    avatar: str,
    mes: str,
    *,
    send_date: str,
    gen_id: Any,
    extra: JsonObject | None = None,
    title: str | None = None,
    gen_started: str | None = None,
    gen_finished: str | None = None,
) -> JsonObject:
    """A member's reply in a group round (``extra`` first: the API, model and reasoning fields
    SillyTavern records, then ``gen_id``, the round's id); optional fields only when given."""
    message: JsonObject = {
        "extra": {**(extra or {}), "gen_id": gen_id},
        "name": name,
        "is_user": False,
        "send_date": send_date,
        "mes": mes,
    }
    for key, value in (("title", title), ("gen_started", gen_started), ("gen_finished", gen_finished)):
        if value is not None:
            message[key] = value
    message["force_avatar"] = avatar_thumbnail(avatar)
    message["original_avatar"] = avatar
    return message


def with_first_swipe(message: JsonObject, *keys: str) -> JsonObject:
    """What saving adds to a new bot message: its text as the only swipe, and a swipe record of
    its ``send_date``, the given ``keys`` (e.g. ``gen_started``) and its ``extra``."""
    record: JsonObject = {"send_date": message.get("send_date")}
    record.update({k: message[k] for k in keys if k in message})
    record["extra"] = json.loads(json.dumps(message.get("extra", {})))
    message["swipes"] = [message.get("mes", "")]
    message["swipe_id"] = 0
    message["swipe_info"] = [record]
    return message


def message_author(message: JsonObject) -> str:
    """The member who wrote a group-chat message (``original_avatar``), or ``""``."""
    value = message.get("original_avatar")
    return value if isinstance(value, str) else ""


def round_id(message: JsonObject) -> Any:
    """The message's ``extra.gen_id`` (the round it belongs to), or None."""
    extra = message.get("extra")
    return extra.get("gen_id") if isinstance(extra, dict) else None


__all__ = [
    "ACTIVATION_STRATEGIES",
    "GENERATION_MODES",
    "GroupFile",
    "avatar_thumbnail",
    "greeting_message",
    "is_group_object",
    "js_number_text",
    "js_pretty",
    "message_author",
    "new_group",
    "read_group",
    "reply_message",
    "round_id",
    "with_first_swipe",
    "write_group",
]
