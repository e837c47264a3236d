"""Tool calls a local model writes as text, turned into real :class:`~.base.ToolCall` events.

A GGUF run by llama.cpp has no tool-call channel: when its chat template offers tools, the model
answers in text.  Qwen2.5 writes ``<tool_call>{"name": …, "arguments": {…}}</tool_call>`` (its
template's format); small models also fall back to a fenced JSON object (```` ```json {…} ``` ````).

Only a block that parses as a JSON object with a string ``name`` becomes a call, and a fenced
block only when that name is one of the tools offered (a story may quote JSON).  Anything else —
malformed JSON, a missing name — stays in the text where it was: nothing unparsed is ever run.
Pure functions; the provider decides what to hold back while streaming (:func:`streamable`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from .base import ToolCall

__all__ = ["MARKERS", "split_tool_calls", "streamable"]

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"
#: Where a call may start: text from here on is held back until the reply is complete.
MARKERS = (_OPEN, "```")
# A fenced block: ``` or ```json, the body, the closing fence (or the end of the reply: the
# model may stop right after the object).
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|tool_call)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_TAGGED = re.compile(re.escape(_OPEN) + r"(.*?)(?:" + re.escape(_CLOSE) + r"|\Z)", re.DOTALL)


def streamable(text: str) -> int:
    """How much of *text* (a reply so far) can be shown: up to the first marker, or to a tail
    that may be the start of one (``<tool`` arriving before ``_call>``)."""
    cut = min((i for i in (text.find(m) for m in MARKERS) if i >= 0), default=len(text))
    for marker in MARKERS:
        for size in range(min(len(marker) - 1, cut), 0, -1):
            if text[:cut].endswith(marker[:size]):
                return cut - size
    return cut


def split_tool_calls(text: str, tool_names: Collection[str]) -> tuple[str, list[ToolCall]]:
    """(*text* without the blocks that became calls, the calls in order)."""
    found: list[tuple[int, int, ToolCall]] = []
    for match in _TAGGED.finditer(text):
        call = _call(match.group(1), None)
        if call is not None:
            found.append((match.start(), match.end(), call))
    for match in _FENCE.finditer(text):
        if any(start <= match.start() < end for start, end, _ in found):
            continue
        call = _call(match.group(1), tool_names)
        if call is not None:
            found.append((match.start(), match.end(), call))
    found.sort(key=lambda item: item[0])
    pieces: list[str] = []
    position = 0
    for start, end, _ in found:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    calls = [ToolCall(f"call_text_{index}", c.name, c.arguments) for index, (_, _, c) in enumerate(found)]
    return ("".join(pieces).strip() if calls else text), calls


def _call(body: str, tool_names: Collection[str] | None) -> ToolCall | None:
    """The call in one block's body, or ``None`` when it is not one (left as text)."""
    try:
        data: Any = json.loads(body.strip())
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    if tool_names is not None and name not in tool_names:
        return None
    arguments = data.get("arguments", data.get("parameters", {}))
    if isinstance(arguments, str):
        raw = arguments  # already JSON text (as the OpenAI wire format sends it)
    elif isinstance(arguments, dict):
        raw = json.dumps(arguments, ensure_ascii=False)
    else:
        return None
    return ToolCall(id="", name=name.strip(), arguments=raw)
