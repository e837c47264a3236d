"""Turn a :class:`ChatRequest` into the arguments of ``chat.completions.create``.

Messages go out as assembled, except for reasoning carried on assistant messages, which the
profile either sends back as ``reasoning_content`` or strips.  Sampler fields and thinking fields
travel as top-level body fields through ``extra_body`` (the SDK merges them into the JSON body),
so any server-specific field a preset carries reaches the server unchanged.
"""

from __future__ import annotations

from typing import Any

from peargarden.formats import replace_lone_surrogates

from .base import ChatRequest, Message
from .profiles import ProviderProfile

# Keys an assistant message may carry its earlier reasoning under (ours is ``reasoning_content``).
REASONING_KEYS = ("reasoning_content", "reasoning")

# Body fields the SDK call sets itself; a preset must not override them.
_RESERVED = {"model", "messages", "stream", "stream_options", "tools", "tool_choice"}


def _well_formed(value: Any) -> Any:
    """*value* with every lone UTF-16 surrogate in its strings replaced by U+FFFD.

    SillyTavern text may hold lone surrogates (legal in JavaScript strings); a request must be valid
    UTF-8 JSON, so that is the one place where they are replaced (files keep them, see
    docs/formats.md)."""
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, dict):
        return {key: _well_formed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_well_formed(item) for item in value]
    return value


def prepare_messages(messages: list[Message], send_reasoning: bool) -> list[Message]:
    out: list[Message] = []
    for message in _well_formed(messages):
        if message.get("role") != "assistant":
            out.append(message)
            continue
        reasoning = next((message[k] for k in REASONING_KEYS if message.get(k)), None)
        carries = any(k in message for k in REASONING_KEYS)
        if not send_reasoning and not carries:
            out.append(message)  # untouched: byte-for-byte what was assembled
            continue
        clean = {k: v for k, v in message.items() if k not in REASONING_KEYS}
        if send_reasoning:
            # DeepSeek's thinking mode wants the field on every assistant turn, even if empty.
            clean["reasoning_content"] = reasoning if isinstance(reasoning, str) else ""
        out.append(clean)
    return out


def build_create_kwargs(request: ChatRequest, model: str, profile: ProviderProfile) -> dict[str, Any]:
    send_back = profile.send_reasoning_back(request.thinking, model)
    extra: dict[str, Any] = {k: v for k, v in request.sampler.items() if k not in _RESERVED}
    if profile.rename_max_tokens and "max_tokens" in extra and "max_completion_tokens" not in extra:
        extra["max_completion_tokens"] = extra.pop("max_tokens")
    # The thinking level is the user's explicit choice for this beat: it wins over preset fields.
    extra.update(profile.thinking_fields(request.thinking, model))
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": prepare_messages(request.messages, send_back),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        kwargs["tools"] = [tool.to_openai() for tool in request.tools]
        if request.tool_choice is not None:
            kwargs["tool_choice"] = request.tool_choice
    if extra:
        kwargs["extra_body"] = extra
    return kwargs
