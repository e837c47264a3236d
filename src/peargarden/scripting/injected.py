"""TavernHelper's injected prompts (``injectPrompts`` / ``uninjectPrompts``): text a card's script adds
to the next generations' prompt, as SillyTavern's extension prompts.

A prompt is ``{id, position: 'in_chat' | 'none', depth, role, content, should_scan}``: ``in_chat``
goes into the chat history *depth* messages from its end with its role (the extension prompt table's
``IN_CHAT``), ``none`` is never sent and only read by the world-info scan when ``should_scan``
(``NONE``).  With ``{once: true}`` it lasts until the next generation ends.  TavernHelper keeps them
in the page's memory (a reload forgets them): so does :class:`InjectedPrompts`, one per chat.

What a script hands over is checked first (:func:`checked`): text only, bounded in size and count,
a prompt that is not one is refused with one line — the frame's calls cross the bridge here, and
the command line's QuickJS scripts get the same check.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from peargarden.tavern import defaults as d
from peargarden.tavern.injections import ExtensionTable

from .host import ScriptError

MAX_PROMPTS = 64  # injected at once by a chat's scripts
MAX_CONTENT = 64_000  # characters of one prompt
MAX_ID = 200
MAX_DEPTH = 10_000
_POSITIONS = ("in_chat", "none")


def _one(prompt: Any) -> dict[str, Any]:
    if not isinstance(prompt, dict):
        raise ScriptError("injectPrompts：每个提示词都要是对象 {id, position, depth, role, content}")
    key = prompt.get("id")
    if not isinstance(key, str | int) or isinstance(key, bool) or not str(key) or len(str(key)) > MAX_ID:
        raise ScriptError(f"injectPrompts：提示词的 id 要是不超过 {MAX_ID} 个字符的文字")
    content = prompt.get("content", "")
    if not isinstance(content, str):
        raise ScriptError(f"injectPrompts：提示词 {key} 的 content 要是文字")
    if len(content) > MAX_CONTENT:
        raise ScriptError(f"injectPrompts：提示词 {key} 太长（超过 {MAX_CONTENT} 个字符）")
    position = prompt.get("position", "in_chat")
    if position not in _POSITIONS:
        raise ScriptError(f"injectPrompts：提示词 {key} 的 position 只能是 in_chat 或 none")
    depth = prompt.get("depth", 0)
    if isinstance(depth, bool) or not isinstance(depth, int | float) or not 0 <= depth <= MAX_DEPTH:
        raise ScriptError(f"injectPrompts：提示词 {key} 的 depth 要是 0 到 {MAX_DEPTH} 的数")
    role = prompt.get("role", "system")
    if role not in d.ROLE_IDS:
        raise ScriptError(f"injectPrompts：提示词 {key} 的 role 只能是 system、user 或 assistant")
    return {"id": str(key), "position": position, "depth": int(depth), "role": role, "content": content,
            "should_scan": bool(prompt.get("should_scan"))}  # fmt: skip


def checked(prompts: Any) -> list[dict[str, Any]]:
    """The prompts a script passed to ``injectPrompts``, each checked and in its plain shape
    (``ScriptError``: one line naming the first one that is not a prompt)."""
    if not isinstance(prompts, list):
        raise ScriptError("injectPrompts 需要一个数组")
    if len(prompts) > MAX_PROMPTS:
        raise ScriptError(f"injectPrompts：一次最多 {MAX_PROMPTS} 个提示词")
    return [_one(prompt) for prompt in prompts]


def set_prompt(table: ExtensionTable, prompt: dict[str, Any]) -> None:
    """*prompt* (checked) as SillyTavern's extension prompt of the same key."""
    position = d.NONE if prompt["position"] == "none" else d.IN_CHAT
    role = d.ROLE_IDS.get(prompt["role"], d.ROLE_SYSTEM)
    table.set(prompt["id"], prompt["content"], position, prompt["depth"], prompt["should_scan"], role)


class InjectedPrompts:
    """A chat's injected prompts between its scripts' calls and its beats (the page's calls and the
    beat run on different threads: a lock)."""

    def __init__(self) -> None:
        self._prompts: dict[str, dict[str, Any]] = {}
        self._once: set[str] = set()
        self._lock = threading.Lock()

    def add(self, prompts: list[dict[str, Any]], *, once: bool) -> None:
        with self._lock:
            for prompt in prompts:
                if prompt["id"] not in self._prompts and len(self._prompts) >= MAX_PROMPTS:
                    raise ScriptError(f"injectPrompts：这个聊天注入的提示词已有 {MAX_PROMPTS} 个（先 uninject）")
                self._prompts[prompt["id"]] = prompt
                if once:
                    self._once.add(prompt["id"])
                else:
                    self._once.discard(prompt["id"])

    def remove(self, ids: Iterable[str]) -> None:
        with self._lock:
            for key in ids:
                self._prompts.pop(key, None)
                self._once.discard(key)

    def apply(self, table: ExtensionTable) -> None:
        """Every prompt into *table* (a state about to assemble, or a script's host)."""
        with self._lock:
            prompts = list(self._prompts.values())
        for prompt in prompts:
            set_prompt(table, prompt)

    def generation_ended(self) -> None:
        """A generation used them: those injected ``once`` are taken out."""
        self.remove(sorted(self._once))

    def __len__(self) -> int:
        return len(self._prompts)


__all__ = ["MAX_CONTENT", "MAX_PROMPTS", "InjectedPrompts", "checked", "set_prompt"]
