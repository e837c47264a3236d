"""Model backends behind one interface (:mod:`.base`): a request in, a stream of events out.

* :mod:`.openai_compat` — any OpenAI-compatible endpoint, over httpx2 (:mod:`._http`: the POST, the
  server-sent events); what differs between servers (thinking parameters, reasoning pass-back) is in
  :mod:`.profiles`.
* :mod:`.embedded` — SmolLM2-135M-Instruct in-process through ``llama-cpp-python`` (the default).
* :mod:`.scripted` — replays scripted turns, for tests.
* :mod:`.registry` — builds a provider from connection values.

Only the interface types are re-exported here: the backends import packages a light command does not
need (httpx2, ``llama_cpp``) and are imported where they are used.
"""

from .base import (
    THINKING_LEVELS,
    ChatRequest,
    Done,
    Message,
    Provider,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingLevel,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "THINKING_LEVELS",
    "ChatRequest",
    "Done",
    "Message",
    "Provider",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ThinkingLevel",
    "ToolCall",
    "ToolSpec",
    "Usage",
]
