"""Request builders the loop calls once per model call, and the helpers they share.

A builder turns a :class:`peargarden.agent.loop.BeatInput` into a ``ChatRequest``.  The history it gets
is the whole active branch; :func:`split_beat` cuts it into earlier beats (prose only: tool traces of
finished beats are not replayed) and the rounds of the beat in progress (assistant tool calls and tool
results, which the model must see to go on).

:func:`plain_builder` (and :func:`plain_setup`, the mode around it) is the simplest request: a system
prompt from the card's fields, then the chat; tests and other fronts put it in their mode tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from peargarden.agent.loop import BeatInput, RequestBuilder
from peargarden.agent.tools import Tool
from peargarden.providers.base import ChatRequest
from peargarden.sessions.context import ContextMessage

from .base import BeatEnv

IMPERSONATE_INSTRUCTION = "[接下来请以{user}的身份、用{user}的口吻写出{user}的下一句话或下一段行动。只写{user}的部分。]"
CONTINUE_INSTRUCTION = "[接着上一条回复继续写，不要重复已经写过的内容。]"


class SplitHistory(msgspec.Struct, frozen=True):
    prior: list[ContextMessage]  # earlier beats, user/assistant prose only
    user_text: str  # the pending user message of this beat ("" when none)
    rounds: list[ContextMessage]  # this beat's assistant/tool messages so far


def _prose(messages: Sequence[ContextMessage]) -> list[ContextMessage]:
    out = []
    for message in messages:
        if message.role not in ("user", "assistant") or message.hidden:
            continue
        if not message.content.strip():
            continue
        out.append(
            ContextMessage(message.role, message.content, message.entry_id, name=message.name, tags=message.tags)
        )
    return out


def split_beat(history: Sequence[ContextMessage], kind: str = "send") -> SplitHistory:
    """Cut *history* at this beat's user message (for ``continue``/``impersonate``: at the end)."""
    last_user = -1
    for index in range(len(history) - 1, -1, -1):
        if history[index].role == "user" and not history[index].hidden:
            last_user = index
            break
    if kind in ("continue", "impersonate") or last_user < 0:
        # No pending user message: everything finished is prior; nothing is in flight yet.
        return SplitHistory(_prose(history), "", [])
    return SplitHistory(_prose(history[:last_user]), history[last_user].content, list(history[last_user + 1 :]))


def rounds_to_openai(rounds: Sequence[ContextMessage]) -> list[dict[str, Any]]:
    return [message.to_openai() for message in rounds]


def card_system_prompt(card: dict[str, Any], user_name: str) -> str:
    """A short system prompt from the card's fields (the projection's headings, in Chinese)."""
    name = str(card.get("name") or "")
    parts = [f"你是{name}。与{user_name}进行角色扮演，只写{name}的言行。" if name else ""]
    for title, key in (("角色描述", "description"), ("性格", "personality"), ("场景", "scenario")):
        value = str(card.get(key) or "").strip()
        if value:
            parts.append(f"# {title}\n{value}")
    text = "\n\n".join(part for part in parts if part)
    return text.replace("{{char}}", name).replace("{{user}}", user_name)


def plain_builder(card: dict[str, Any], user_name: str) -> RequestBuilder:
    system = card_system_prompt(card, user_name)

    def build(inp: BeatInput) -> ChatRequest:
        split = split_beat(inp.history, inp.kind)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        messages += [{"role": m.role, "content": m.content} for m in split.prior]
        if split.user_text:
            messages.append({"role": "user", "content": split.user_text})
        messages += rounds_to_openai(split.rounds)
        if inp.kind == "impersonate":
            messages.append({"role": "system", "content": IMPERSONATE_INSTRUCTION.format(user=user_name)})
        elif inp.kind == "continue":
            messages.append({"role": "system", "content": CONTINUE_INSTRUCTION})
        return ChatRequest(messages=messages, tools=list(inp.tools) if inp.kind != "impersonate" else [])

    return build


def plain_setup(env: BeatEnv) -> tuple[RequestBuilder, list[Tool]]:
    """A mode with the card's fields as its system prompt and no tools (for tests and other fronts)."""
    return plain_builder(env.card.data, env.user_name), []
