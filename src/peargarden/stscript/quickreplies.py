"""Quick Reply sets as SillyTavern stores them (``QuickReplies/<name>.json``): a named set of buttons,
each a label and an STscript message, with the automation switches SillyTavern has.

Pure data: reading a set file, writing it back with unknown fields kept, finding a reply by
``Set.Label``.  Running one is the interpreter's job (its arguments become ``{{arg::name}}`` macros).
"""

from __future__ import annotations

from typing import Any

import msgspec

# The switches a reply may carry, with SillyTavern's defaults.
REPLY_DEFAULTS: dict[str, Any] = {
    "showLabel": False,
    "label": "",
    "icon": "",
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
    "automationId": "",
}
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
        data.setdefault("idIndex", max((int(r.get("id") or 0) for r in replies), default=0))
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
        self.data["idIndex"] = int(self.data.get("idIndex") or 0) + 1
        reply = {**REPLY_DEFAULTS, "id": self.data["idIndex"], "label": label, "message": message, **fields}
        self.replies.append(reply)
        return reply

    def remove(self, reply: dict[str, Any]) -> None:
        self.replies.remove(reply)

    def to_json(self) -> dict[str, Any]:
        return self.data


class QuickReplyLibrary(msgspec.Struct):
    """Every set by name, and which are switched on globally and for the open chat."""

    sets: dict[str, QuickReplySet] = msgspec.field(default_factory=dict)
    global_sets: list[dict[str, Any]] = msgspec.field(default_factory=list)  # {"set": name, "isVisible": bool}
    chat_sets: list[dict[str, Any]] = msgspec.field(default_factory=list)

    def get(self, name: str) -> QuickReplySet | None:
        return self.sets.get(name)

    def find(self, qualified: str) -> tuple[QuickReplySet, dict[str, Any]] | None:
        """``Set.Label`` (the label may itself hold dots); else a label in an active set."""
        if "." in qualified:
            set_name, _, label = qualified.partition(".")
            found = self.sets.get(set_name)
            if found is not None:
                reply = found.find(label)
                if reply is not None:
                    return found, reply
        for link in [*self.chat_sets, *self.global_sets]:
            active = self.sets.get(str(link.get("set")))
            if active is not None:
                reply = active.find(qualified)
                if reply is not None:
                    return active, reply
        return None

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


__all__ = ["AUTOMATIONS", "REPLY_DEFAULTS", "SET_DEFAULTS", "QuickReplyLibrary", "QuickReplySet"]
