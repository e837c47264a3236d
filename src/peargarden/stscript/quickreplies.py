"""Quick Reply sets as SillyTavern stores them (``QuickReplies/<name>.json``): a named set of buttons,
each a label and an STscript message, with the automation switches SillyTavern has.

Pure data: reading a set file, writing it back with unknown fields kept, finding a reply by
``Set.Label``.  Running one is the interpreter's job (its arguments become ``{{arg::name}}`` macros).
"""

from __future__ import annotations

import unicodedata
from typing import Any

import msgspec

# The fields of a reply, in the order SillyTavern writes them (``QuickReply.toJSON``), with its
# defaults (``id`` is given when the reply is added).
REPLY_DEFAULTS: dict[str, Any] = {
    "icon": "",
    "showLabel": False,
    "label": "",
    "title": "",
    "message": "",
    "contextList": [],
    "preventAutoExecute": True,
    "isHidden": False,
    "executeOnStartup": False,
    "executeOnUser": False,
    "executeOnAi": False,
    "executeOnChatChange": False,
    "executeOnGroupMemberDraft": False,
    "executeOnNewChat": False,
    "executeBeforeGeneration": False,
    "automationId": "",
}
REPLY_KEYS = ("id", *REPLY_DEFAULTS)
SET_DEFAULTS: dict[str, Any] = {
    "version": 2,
    "name": "",
    "disableSend": False,
    "placeBeforeInput": False,
    "injectInput": False,
    "color": "transparent",
    "onlyBorderColor": False,
}
AUTOMATIONS = {
    "startup": "executeOnStartup",
    "user": "executeOnUser",
    "ai": "executeOnAi",
    "chat_change": "executeOnChatChange",
    "new_chat": "executeOnNewChat",
    "group_member_draft": "executeOnGroupMemberDraft",
}

# What SillyTavern 1.18 writes on its first start: the shipped "Default" set (an old-format set that
# the extension migrates, its replies numbered 1, 2, 3), switched on for every chat.
_DEFAULT_SET_REPLIES = (("HELP", "/?"), ("New Chat", "/newchat"), ("Match UI to Background", "/bgcol"))


def reply_json(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply as SillyTavern's ``JSON.stringify(qr)`` shows it: its fields in order, nothing else."""
    return {key: reply.get(key, REPLY_DEFAULTS.get(key)) for key in REPLY_KEYS}


def locale_key(name: str) -> tuple[str, str]:
    """A sort key close to ``localeCompare``: accents and case ignored first, lower case before upper."""
    decomposed = unicodedata.normalize("NFD", name)
    base = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return base, name.swapcase()


class QuickReplySet(msgspec.Struct):
    """One set: ``data`` is the file's object (unknown fields kept); replies live in ``qrList``."""

    data: dict[str, Any]

    @classmethod
    def new(cls, name: str, **switches: Any) -> QuickReplySet:
        data = {**SET_DEFAULTS, "name": name, **switches, "qrList": [], "idIndex": 0}
        return cls(data)

    @classmethod
    def from_json(cls, value: Any) -> QuickReplySet:
        """A set file's object; raises ``ValueError`` with a plain reason when it is not one."""
        if not isinstance(value, dict):
            raise ValueError("不是 Quick Reply 集（应为 JSON 对象）")
        name = value.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError("Quick Reply 集缺少 name")
        replies = value.get("qrList", [])
        if not isinstance(replies, list) or not all(isinstance(r, dict) for r in replies):
            raise ValueError("Quick Reply 集的 qrList 应为对象列表")
        data = {**SET_DEFAULTS, **value}
        data["qrList"] = [{**REPLY_DEFAULTS, **reply} for reply in replies]
        data.setdefault("idIndex", 0)
        return cls(data)

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def replies(self) -> list[dict[str, Any]]:
        replies: list[dict[str, Any]] = self.data["qrList"]
        return replies

    def find(self, label: str) -> dict[str, Any] | None:
        return next((r for r in self.replies if r.get("label") == label), None)

    def find_id(self, reply_id: int) -> dict[str, Any] | None:
        return next((r for r in self.replies if r.get("id") == reply_id), None)

    def add(self, label: str, message: str, **fields: Any) -> dict[str, Any]:
        """A new reply, numbered as SillyTavern numbers them (``addQuickReply``: one past the highest
        id or index, and the index moves one further — a new set's replies are 2, 4, 6 …)."""
        highest = max((int(r.get("id") or 0) for r in self.replies), default=0)
        number = max(int(self.data.get("idIndex") or 0), highest) + 1
        self.data["idIndex"] = number + 1
        reply = {"id": number + 1, **REPLY_DEFAULTS, "label": label, "message": message, **fields}
        self.replies.append(reply)
        return reply

    def remove(self, reply: dict[str, Any]) -> None:
        self.replies.remove(reply)

    def to_json(self) -> dict[str, Any]:
        return self.data


class QuickReplyLibrary(msgspec.Struct):
    """Every set by name (in SillyTavern's list order), and which are switched on globally, for the
    open chat and for the open character."""

    sets: dict[str, QuickReplySet] = msgspec.field(default_factory=dict)
    global_sets: list[dict[str, Any]] = msgspec.field(default_factory=list)  # {"set": name, "isVisible": bool}
    chat_sets: list[dict[str, Any]] = msgspec.field(default_factory=list)
    character_sets: list[dict[str, Any]] = msgspec.field(default_factory=list)

    @classmethod
    def first_start(cls) -> QuickReplyLibrary:
        """The library of a fresh SillyTavern 1.18 data folder: the "Default" set, switched on."""
        default = QuickReplySet.new("Default")
        for number, (label, message) in enumerate(_DEFAULT_SET_REPLIES, start=1):
            default.replies.append({"id": number, **REPLY_DEFAULTS, "label": label, "message": message})
        return cls(sets={"Default": default}, global_sets=[{"set": "Default", "isVisible": True}])

    def get(self, name: str) -> QuickReplySet | None:
        return self.sets.get(name)

    def create(self, name: str, **switches: Any) -> QuickReplySet:
        """``createSet``: a set of that name is replaced where it stands by a new, empty one; a new
        name goes before the first name that sorts after it."""
        made = QuickReplySet.new(name, **switches)
        if name in self.sets:
            self.sets[name] = made
            return made
        names = list(self.sets)
        at = next((i for i, other in enumerate(names) if locale_key(other) > locale_key(name)), len(names))
        names.insert(at, name)
        self.sets = {n: made if n == name else self.sets[n] for n in names}
        return made

    def find(self, name: str) -> tuple[QuickReplySet, dict[str, Any]] | None:
        """``executeQuickReplyByName``: a reply whose label is the whole name in the sets switched on
        (global, then the chat's, then the character's); else ``Set.Label`` split at the first dot,
        in any set (no dot: the label is empty)."""
        for link in [*self.global_sets, *self.chat_sets, *self.character_sets]:
            linked = self.sets.get(str(link.get("set")))
            if linked is not None:
                reply = linked.find(name)
                if reply is not None:
                    return linked, reply
        set_name, _, label = name.partition(".")
        found = self.sets.get(set_name)
        reply = found.find(label) if found is not None else None
        return (found, reply) if found is not None and reply is not None else None

    def active(self) -> list[tuple[QuickReplySet, bool]]:
        """The sets switched on (global first, then the chat's), each once, with whether visible."""
        seen: set[str] = set()
        out = []
        for link in [*self.global_sets, *self.chat_sets]:
            name = str(link.get("set"))
            found = self.sets.get(name)
            if found is not None and name not in seen:
                seen.add(name)
                out.append((found, bool(link.get("isVisible", True))))
        return out


__all__ = [
    "AUTOMATIONS",
    "REPLY_DEFAULTS",
    "REPLY_KEYS",
    "SET_DEFAULTS",
    "QuickReplyLibrary",
    "QuickReplySet",
    "locale_key",
    "reply_json",
]
