"""A provider that replays scripted turns, for tests of everything above the provider layer.

Each call to :meth:`ScriptedProvider.stream` consumes the next :class:`ScriptedTurn` and records the
:class:`ChatRequest` it was given (a deep copy, so later mutation by the caller does not rewrite
history).  A turn can raise instead of answering, to exercise error paths.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import msgspec

from peargarden.errors import ProviderError

from .base import ChatRequest, Done, StreamEvent, TextDelta, ThinkingDelta, ToolCall, Usage


class ScriptedTurn(msgspec.Struct):
    """One scripted answer.

    Events go out in this order: thinking chunks, text chunks, tool calls, usage, ``Done``.  When
    ``events`` is given it is replayed verbatim instead (for exact interleavings), followed by a
    ``Done`` if it does not end with one.  ``raise_error`` is raised after ``raise_after`` events
    have been yielded (0 = before anything).
    """

    text: Sequence[str] = ()
    thinking: Sequence[str] = ()
    tool_calls: Sequence[ToolCall] = ()
    usage: Usage | None = None
    stop_reason: str | None = None
    events: Sequence[StreamEvent] | None = None
    raise_error: BaseException | None = None
    raise_after: int = 0
    model: str = "scripted"

    def build_events(self) -> list[StreamEvent]:
        if self.events is not None:
            out = list(self.events)
        else:
            out = [ThinkingDelta(t) for t in self.thinking]
            out += [TextDelta(t) for t in self.text]
            out += list(self.tool_calls)
            if self.usage is not None:
                out.append(self.usage)
        if not out or not isinstance(out[-1], Done):
            reason = self.stop_reason or ("tool_calls" if self.tool_calls else "stop")
            out.append(Done(stop_reason=reason, model=self.model))  # type: ignore[arg-type]
        return out


def text_turn(*chunks: str, usage: Usage | None = None) -> ScriptedTurn:
    """Shorthand: a turn that answers with plain text chunks."""
    return ScriptedTurn(text=chunks, usage=usage)


def tool_turn(*calls: ToolCall, text: Sequence[str] = ()) -> ScriptedTurn:
    """Shorthand: a turn that calls tools (optionally after some text)."""
    return ScriptedTurn(text=text, tool_calls=calls)


# A dataclass, not a msgspec Struct: tests subclass it with their own __init__.
@dataclass
class ScriptedProvider:
    """Replays ``turns`` in order; records every request in ``requests``.

    Running out of turns raises :class:`ProviderError` (a test asked for more beats than it
    scripted).  ``cancel`` is honoured between events exactly like a real provider: the stream
    ends with ``Done(stop_reason="aborted")``.
    """

    turns: list[ScriptedTurn] = field(default_factory=list)
    name: str = "scripted"
    models: list[str] = field(default_factory=lambda: ["scripted"])
    requests: list[ChatRequest] = field(default_factory=list)
    # Called after each yielded event (e.g. to set the cancel event mid-stream in a test).
    on_event: Callable[[StreamEvent], None] | None = None

    def add(self, *turns: ScriptedTurn) -> ScriptedProvider:
        self.turns.extend(turns)
        return self

    @property
    def remaining(self) -> int:
        return len(self.turns)

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        # Recorded and consumed at call time so turn order follows call order; errors surface on
        # iteration, like a real provider's.
        self.requests.append(copy.deepcopy(request))
        if not self.turns:
            message = f"scripted provider has no turn left for request #{len(self.requests)}"
            missing = ScriptedTurn(raise_error=ProviderError(message))
            return self._replay(missing, cancel)
        return self._replay(self.turns.pop(0), cancel)

    def _replay(self, turn: ScriptedTurn, cancel: threading.Event | None) -> Iterator[StreamEvent]:
        events = turn.build_events()
        if turn.raise_error is not None and turn.raise_after <= 0:
            raise turn.raise_error
        for index, event in enumerate(events):
            if cancel is not None and cancel.is_set():
                yield Done(stop_reason="aborted", model=turn.model)
                return
            yield event
            if self.on_event is not None:
                self.on_event(event)
            if turn.raise_error is not None and index + 1 >= turn.raise_after:
                raise turn.raise_error
            if isinstance(event, Done):
                return

    def list_models(self) -> list[str]:
        return list(self.models)


def scripted(turns: Iterable[ScriptedTurn]) -> ScriptedProvider:
    return ScriptedProvider(turns=list(turns))
