"""The message container SillyTavern fills during Chat Completion assembly, with its token budget.

Slots are indexed by the prompt's position in the collection (a sparse list): placing a group at
index *i* overwrites slot *i*, appending goes after the last slot.  Flattening walks the slots in
index order and drops messages whose content is empty.  Every placement is budget-checked first
and raises :class:`TokenBudgetExceeded` when it does not fit (ST then still sends what it had).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from peargarden.text.tokens import TextCounter, message_tokens


class TokenBudgetExceeded(Exception):
    def __init__(self, identifier: str) -> None:
        super().__init__(identifier)
        self.identifier = identifier


class SlotNotFound(Exception):
    def __init__(self, identifier: str) -> None:
        super().__init__(identifier)
        self.identifier = identifier


MessageCost = Callable[[str, str, str | None], int]


def cost_function(count: TextCounter) -> MessageCost:
    cache: dict[tuple[str, str, str | None], int] = {}

    def cost(role: str, content: str, name: str | None) -> int:
        key = (role, content, name)
        hit = cache.get(key)
        if hit is None:
            hit = message_tokens(count, role, content, name)
            cache[key] = hit
        return hit

    return cost


class Message(msgspec.Struct):
    role: str
    content: str
    identifier: str
    name: str | None = None
    tokens: int = 0
    injected: bool = False

    def as_dict(self, *, name_last: bool = False) -> dict[str, str]:
        # Grouped messages serialize as role, name, content; ST's squashed (flat) list as
        # role, content, name.  JSON key order is part of the byte-exact request.
        out = {"role": self.role}
        if self.name and not name_last:
            out["name"] = self.name
        out["content"] = self.content
        if self.name and name_last:
            out["name"] = self.name
        return out


class Group(msgspec.Struct):
    identifier: str
    messages: list[Message] = msgspec.field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(m.tokens for m in self.messages)


class ChatCompletion:
    def __init__(self, cost: MessageCost, context: int, response: int) -> None:
        self._cost = cost
        self.budget = context - response
        self.slots: list[Group | None] = []
        self.squashed = False

    # messages -----------------------------------------------------------------
    def message(self, role: object, content: object, identifier: str, name: object = None) -> Message:
        # ST defaults a missing role to system; a malformed (non-string) role or content is treated
        # the same way here instead of failing the whole assembly.
        role = role if isinstance(role, str) and role else "system"
        content = content if isinstance(content, str) else ""
        label = name if isinstance(name, str) and name else None
        tokens = self._cost(role, content, label) if content else 0
        return Message(role=role, content=content, identifier=identifier, name=label, tokens=tokens)

    def set_name(self, msg: Message, name: str | None) -> None:
        msg.name = name
        msg.tokens = self._cost(msg.role, msg.content, name) if msg.content else 0

    # budget -------------------------------------------------------------------
    def can_afford(self, tokens: int) -> bool:
        return self.budget - tokens >= 0

    def reserve(self, tokens: int) -> None:
        self.budget -= tokens

    def free(self, tokens: int) -> None:
        self.budget += tokens

    # placement ----------------------------------------------------------------
    def add(self, group: Group, index: int | None = None) -> None:
        if not self.can_afford(group.tokens):
            raise TokenBudgetExceeded(group.identifier)
        if index is not None and index != -1:
            while len(self.slots) <= index:
                self.slots.append(None)
            self.slots[index] = group
        else:
            self.slots.append(group)
        self.budget -= group.tokens

    def _find(self, identifier: str) -> Group:
        for slot in self.slots:
            if slot is not None and slot.identifier == identifier:
                return slot
        raise SlotNotFound(identifier)

    def has(self, identifier: str) -> bool:
        return any(s is not None and s.identifier == identifier for s in self.slots)

    def insert(self, msg: Message, identifier: str, position: str = "end") -> None:
        if not self.can_afford(msg.tokens):
            raise TokenBudgetExceeded(msg.identifier)
        group = self._find(identifier)
        if msg.content:
            if position == "start":
                group.messages.insert(0, msg)
            else:
                group.messages.append(msg)
            self.budget -= msg.tokens

    def remove_last(self, identifier: str) -> None:
        group = self._find(identifier)
        if group.messages:
            msg = group.messages.pop()
            self.budget += msg.tokens

    def flatten(self) -> list[Message]:
        out: list[Message] = []
        for slot in self.slots:
            if slot is None:
                continue
            out.extend(m for m in slot.messages if m.content)
        return out

    def squash_system_messages(self) -> None:
        """ST's squash: join runs of unnamed system messages with ``\\n`` (budget not re-checked)."""
        exclude = {"newMainChat", "newChat", "groupNudge"}
        squashed: list[Message] = []
        last: Message | None = None

        def squashable(m: Message) -> bool:
            return m.identifier not in exclude and m.role == "system" and not m.name

        for msg in [m for slot in self.slots if slot is not None for m in slot.messages]:
            if msg.role == "system" and not msg.content:
                continue
            if squashable(msg) and last is not None and squashable(last):
                last.content += "\n" + msg.content
                last.tokens = self._cost(last.role, last.content, None)
            else:
                squashed.append(msg)
                last = msg
        self.slots = [Group("root", squashed)]
        self.squashed = True
