"""Translate streamed ``chat.completion.chunk`` objects (decoded JSON) into our events.

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
    """A field of a JSON object; ``None`` when it is missing or *obj* is not an object (a server
    that sends odd shapes gets its odd parts ignored, not a crash)."""
    return obj.get(name) if isinstance(obj, dict) else None


def _objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a JSON list (``choices``, ``tool_calls``); anything else counts as none."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


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
        # Characters of reply, reasoning and tool-call arguments received (the reply-size cap).
        self.received = 0
        self._usage: Usage | None = None
        self._splitter = ThinkTagSplitter()
        self._tools = ToolCallAccumulator()
        self._had_tool_calls = False
        self._spoke = False  # text that is not only whitespace came
        self.thought = False  # reasoning came

    @property
    def complete(self) -> bool:
        """The server said it was done (a finish reason or the usage that follows it)."""
        return self.finish_reason is not None or self.saw_usage

    @property
    def replied(self) -> bool:
        """Words (not only whitespace) or a tool call came: a reply, not just reasoning or nothing."""
        held = self._splitter.held_text()
        return self._spoke or self._had_tool_calls or bool(self._tools) or (bool(held) and not held.isspace())

    def feed(self, chunk: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self.chunks += 1
        choices = _objects(_field(chunk, "choices"))
        self.choices += len(choices)
        model = _field(chunk, "model")
        if model and isinstance(model, str):
            self.model = model
        usage = _field(chunk, "usage")
        if usage is not None:
            self._usage = usage_event(usage)
            self.saw_usage = True
        for choice in choices:
            if choice.get("index", 0) not in (0, None):
                continue  # n > 1 is never requested; ignore stray alternatives
            delta = choice.get("delta")
            if isinstance(delta, dict):
                thinking = reasoning_text(delta)
                if thinking:
                    self.received += len(thinking)
                    self.thought = True
                    events.append(ThinkingDelta(thinking))
                content = delta.get("content")
                if content and isinstance(content, str):
                    self.received += len(content)
                    for kind, text in self._splitter.feed(content):
                        if kind == "text":
                            self._spoke = self._spoke or not text.isspace()
                            events.append(TextDelta(text))
                        else:
                            self.thought = True
                            events.append(ThinkingDelta(text))
                for call in _objects(delta.get("tool_calls")):
                    function = call.get("function")
                    arguments = _field(function, "arguments")
                    if isinstance(arguments, str):
                        self.received += len(arguments)
                    self._tools.add(call.get("index"), call.get("id"), _field(function, "name"), arguments)
            finish_reason = choice.get("finish_reason")
            if finish_reason and isinstance(finish_reason, str):
                self.finish_reason = finish_reason
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


def completion_as_chunk(body: Any) -> dict[str, Any]:
    """A whole (non-streamed) ``chat.completion`` body as one equivalent stream chunk.

    Some proxies ignore ``stream: true`` and answer with plain JSON; the reply is still good.
    """
    if not isinstance(body, dict):
        raise ValueError("not a JSON object")
    choices = []
    listed = body.get("choices") or []
    if not isinstance(listed, list):
        raise ValueError("choices is not a list")
    for position, choice in enumerate(listed):
        if not isinstance(choice, dict) or not isinstance(choice.get("message") or {}, dict):
            raise ValueError("a choice without a message object")
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list) or not all(isinstance(call, dict) for call in calls):
            raise ValueError("tool_calls is not a list of objects")
        message["tool_calls"] = [{"index": i, **call} for i, call in enumerate(calls)] or None
        choices.append(
            {"index": choice.get("index", position), "delta": message, "finish_reason": choice.get("finish_reason")}
        )
    return {
        "id": body.get("id") or "completion",
        "object": "chat.completion.chunk",
        "created": body.get("created") or 0,
        "model": body.get("model") or "",
        "choices": choices,
        "usage": body.get("usage"),
    }
