"""The provider interface: one request in, a stream of events out.

Every backend (OpenAI-compatible HTTP, the embedded llama.cpp model, the scripted test provider)
implements :class:`Provider`.  The agent loop only ever sees these types.

Streams are plain synchronous iterators: the CLI consumes them directly and the web runs them in
a worker thread.  ``cancel`` (a :class:`threading.Event`) lets a front stop a beat at any time;
a provider checks it between chunks and ends the stream with a ``Done(stop_reason="aborted")``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any, Literal, Protocol

import msgspec

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")

# A chat message in OpenAI Chat Completions shape: {"role", "content", optional "name",
# "tool_calls", "tool_call_id", "reasoning_content"}.  Kept as plain dicts so a SillyTavern-exact
# request goes out byte for byte as assembled.
Message = dict[str, Any]


class Timeouts(msgspec.Struct, frozen=True):
    """Seconds.  ``connect``: TCP and TLS; ``first_byte``: from sending a request to the answer's
    status line; ``idle``: the longest silence inside a streamed reply; ``total``: one call, from the
    first try to the last byte, retries and their waits included."""

    connect: float = 10.0
    first_byte: float = 120.0
    idle: float = 60.0
    total: float = 600.0


#: The names of the limits, as in ``[providers.NAME]`` (``<key>_timeout``) and the CLI flags.
TIMEOUT_KEYS = ("connect", "first_byte", "idle", "total")


class ToolSpec(msgspec.Struct, frozen=True):
    """A tool offered to the model (OpenAI ``tools`` entry)."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class ContextBudget(msgspec.Struct, frozen=True):
    """The context a builder fitted a request into, for a front's context bar (never sent)."""

    tokens: int  # the prompt's tokens, counted as the builder counted them
    context: int  # the context size it was built for
    response: int = 0  # the part of it kept for the reply


class Cast(msgspec.Struct, frozen=True):
    """Who is who in a role-play request, for a small model's guards (never sent): the names the
    character goes by (*own*), the user's (*user*: the persona's name), and the other persons of the
    card and its lore (*others*).  A reply whose character calls itself by one of the last two is
    the character speaking as someone else (:mod:`._self_names`)."""

    own: tuple[str, ...] = ()
    user: tuple[str, ...] = ()
    others: tuple[str, ...] = ()


class ChatRequest(msgspec.Struct):
    messages: list[Message]
    model: str = ""
    tools: list[ToolSpec] = msgspec.field(default_factory=list)
    # Sampler and other top-level body fields (temperature, max_tokens, top_p, ...), sent as given.
    sampler: dict[str, Any] = msgspec.field(default_factory=dict)
    thinking: ThinkingLevel = "off"
    # Forced tool choice ({"type": "function", "function": {"name": ...}}) or "auto"/"none".
    tool_choice: Any = None
    # What the builder fitted the messages into (tavern mode: the preset's context size); not sent.
    budget: ContextBudget | None = None
    # The lorebook entries that fired for this request, ``{"title", "book"}`` each (tavern mode: and the
    # entry's ``uid``, which a card's scripts are told); not sent (a front shows them under the reply).
    lore: list[dict[str, str]] = msgspec.field(default_factory=list)
    # A short line in the character's voice that a small model's guards show when every try left
    # the character (claimed to be a model) and nothing else is left; not sent.  The stage's
    # small-model profile makes it from the card ("" = the guard's own pause).
    fallback_reply: str = ""
    # The names of the character, the user and the other persons, for the same guards; not sent.
    cast: Cast = msgspec.field(default_factory=Cast)
    # Whether to ask for server-sent events: None: the connection's setting; False: the whole reply in
    # one answer (``"stream": false``), as SillyTavern sends it when the preset says ``stream_openai: false``.
    stream: bool | None = None


class TextDelta(msgspec.Struct, frozen=True):
    text: str
    type: Literal["text"] = "text"


class TextRetract(msgspec.Struct, frozen=True):
    """The end of the reply shown so far, taken back: *text* is that end, exactly as it was streamed
    (a small model's guard rejected a sentence it had let through clause by clause, or the whole
    try before another).  *reason*: ``echo``, ``claim``, ``repeat``, ``user`` (the character spoke
    as the user) or ``name`` (it called itself by another person's name); see the guards."""

    text: str
    reason: str = ""
    type: Literal["retract"] = "retract"


def take_back(shown: str, taken: str) -> str:
    """*shown* without its end *taken* (a :class:`TextRetract`); when *shown* does not end with it
    (a front that changed the text on its way), as many characters from its end."""
    if shown.endswith(taken):
        return shown[: len(shown) - len(taken)]
    return shown[: max(0, len(shown) - len(taken))]


def stream_text(events: Iterable[object]) -> str:
    """The reply a stream leaves: its text pieces, less what was taken back."""
    text = ""
    for event in events:
        if isinstance(event, TextDelta):
            text += event.text
        elif isinstance(event, TextRetract):
            text = take_back(text, event.text)
    return text


class ThinkingDelta(msgspec.Struct, frozen=True):
    text: str
    type: Literal["thinking"] = "thinking"


class ToolCall(msgspec.Struct, frozen=True):
    """A complete tool call, emitted once its arguments have fully arrived.

    ``arguments`` is the raw JSON text as the model sent it (it may be truncated or invalid:
    the agent loop repairs or rejects it, never the provider).
    """

    id: str
    name: str
    arguments: str
    type: Literal["tool_call"] = "tool_call"


class Usage(msgspec.Struct, frozen=True):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    type: Literal["usage"] = "usage"


class Done(msgspec.Struct, frozen=True):
    stop_reason: Literal["stop", "length", "tool_calls", "aborted", "error"] = "stop"
    model: str = ""
    type: Literal["done"] = "done"


StreamEvent = TextDelta | TextRetract | ThinkingDelta | ToolCall | Usage | Done


class Provider(Protocol):
    """A model backend."""

    name: str

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        """Send *request*; yield events; the last event is always :class:`Done`.

        Raises :class:`peargarden.errors.ProviderError` (after retries) when the backend fails.
        """
        ...

    def list_models(self) -> list[str]: ...
