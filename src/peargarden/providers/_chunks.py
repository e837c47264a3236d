"""Translate streamed ``ChatCompletionChunk`` objects into our events.

Reasoning arrives under different names depending on the server — ``reasoning_content``
(DeepSeek, llama.cpp), ``reasoning`` (vLLM, OpenRouter, Ollama), ``reasoning_details``
(OpenRouter, alongside ``reasoning`` with the same text) or inline ``<think>`` tags in ``content``.
One delta's reasoning is taken from the first of those fields that is present, so OpenRouter's
duplicate is not shown twice.
"""

from __future__ import annotations

from typing import Any

from ._think_tags import ThinkTagSplitter
from ._tool_calls import ToolCallAccumulator
from .base import Done, StreamEvent, TextDelta, ThinkingDelta, Usage

_STOP_REASONS = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "stop",
    "eos": "stop",
}


def _field(obj: Any, name: str) -> Any:
    """A declared attribute, or an extra one the SDK kept in ``model_extra``."""
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def reasoning_text(delta: Any) -> str:
    for name in ("reasoning_content", "reasoning"):
        value = _field(delta, name)
        if isinstance(value, str) and value:
            return value
    details = _field(delta, "reasoning_details")
    if isinstance(details, list):
        parts: list[str] = []
        for item in details:
            if isinstance(item, dict):
                text = item.get("text") or item.get("summary")
                if isinstance(text, str):
                    parts.append(text)
        return "".join(parts)
    return ""


def usage_event(usage: Any) -> Usage:
    details = _field(usage, "prompt_tokens_details")
    cached = _field(details, "cached_tokens") if details is not None else None
    if cached is None:
        cached = _field(usage, "prompt_cache_hit_tokens")  # DeepSeek
    return Usage(
        prompt_tokens=int(_field(usage, "prompt_tokens") or 0),
        completion_tokens=int(_field(usage, "completion_tokens") or 0),
        cached_tokens=int(cached or 0),
    )


class ChunkReader:
    """Feed chunks in order; :meth:`finish` ends the reply with tool calls, usage and ``Done``."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.finish_reason: str | None = None
        self.saw_usage = False
        self.produced = False
        # Chunks seen, and choices in them: tells "only [DONE]" and "no choices" from a cut stream.
        self.chunks = 0
        self.choices = 0
        self._usage: Usage | None = None
        self._splitter = ThinkTagSplitter()
        self._tools = ToolCallAccumulator()
        self._had_tool_calls = False

    @property
    def complete(self) -> bool:
        """The server said it was done (a finish reason or the usage that follows it)."""
        return self.finish_reason is not None or self.saw_usage

    def feed(self, chunk: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self.chunks += 1
        self.choices += len(getattr(chunk, "choices", None) or [])
        if getattr(chunk, "model", None):
            self.model = chunk.model
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self._usage = usage_event(usage)
            self.saw_usage = True
        for choice in getattr(chunk, "choices", None) or []:
            if getattr(choice, "index", 0) not in (0, None):
                continue  # n > 1 is never requested; ignore stray alternatives
            delta = choice.delta
            if delta is not None:
                thinking = reasoning_text(delta)
                if thinking:
                    events.append(ThinkingDelta(thinking))
                content = delta.content
                if content:
                    for kind, text in self._splitter.feed(content):
                        events.append(TextDelta(text) if kind == "text" else ThinkingDelta(text))
                for call in delta.tool_calls or []:
                    function = call.function
                    self._tools.add(
                        call.index,
                        call.id,
                        function.name if function is not None else None,
                        function.arguments if function is not None else None,
                    )
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
                events.extend(self._flush_content())
                events.extend(self._finish_tools())
        if events:
            self.produced = True
        return events

    def finish(self) -> list[StreamEvent]:
        events: list[StreamEvent] = [*self._flush_content(), *self._finish_tools()]
        if self._usage is not None:
            events.append(self._usage)
        events.append(Done(stop_reason=self._stop_reason(), model=self.model))  # type: ignore[arg-type]
        return events

    def _flush_content(self) -> list[StreamEvent]:
        return [TextDelta(t) if k == "text" else ThinkingDelta(t) for k, t in self._splitter.flush()]

    def _finish_tools(self) -> list[StreamEvent]:
        calls = self._tools.finish()
        if calls:
            self._had_tool_calls = True
        return list(calls)

    def _stop_reason(self) -> str:
        reason = _STOP_REASONS.get(self.finish_reason or "stop", "stop")
        # Some servers (Ollama, llama.cpp) end a tool-calling turn with "stop".
        if reason == "stop" and self._had_tool_calls:
            return "tool_calls"
        return reason


def completion_as_chunk(body: Any) -> Any:
    """A whole (non-streamed) ``chat.completion`` body as one equivalent stream chunk.

    Some proxies ignore ``stream: true`` and answer with plain JSON; the reply is still good.
    """
    from openai.types.chat import ChatCompletionChunk

    if not isinstance(body, dict):
        raise ValueError("not a JSON object")
    choices = []
    for position, choice in enumerate(body.get("choices") or []):
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls") or []
        message["tool_calls"] = [{"index": i, **call} for i, call in enumerate(calls)] or None
        choices.append(
            {"index": choice.get("index", position), "delta": message, "finish_reason": choice.get("finish_reason")}
        )
    return ChatCompletionChunk.model_validate(
        {
            "id": body.get("id") or "completion",
            "object": "chat.completion.chunk",
            "created": body.get("created") or 0,
            "model": body.get("model") or "",
            "choices": choices,
            "usage": body.get("usage"),
        }
    )
