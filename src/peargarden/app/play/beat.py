"""A beat as the fronts hold it (in the manner of llm's ``Response``): made by
``ChatSession.play(action, text=…)``, iterated for its events, stopped from any thread, and read as a
:class:`~peargarden.agent.result.BeatResult` once it is over.

    beat = session.play("send", "掌柜可还记得怀瑾公子？")
    for item in beat:                       # agent events, and ApprovalPrompt items to answer
        if isinstance(item, ApprovalPrompt):
            item.reply("once")
    beat.result.stop_reason, beat.result.text, beat.result.requests

Iterating the beat runs it on a worker thread, so the front's own thread stays free for Ctrl-C or a
web request loop, and the tool approvals the loop asks for arrive as :class:`ApprovalPrompt` items.
:meth:`Beat.events` runs it on the caller's thread instead, answering approvals with the approver
given to ``play`` (tests, one-shot scripts).  Either way the chat is held from ``play`` until the
beat's last event; a beat that is dropped without being read gives the chat back.
"""

from __future__ import annotations

import queue
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from peargarden.agent.approvals import Answer, ApprovalAnswer, ApprovalRequest, Approver
from peargarden.agent.events import (
    AgentEvent,
    DoneEvent,
    ErrorEvent,
    SpeakerEvent,
    TextDeltaEvent,
    TextRetractEvent,
    ThinkingDeltaEvent,
    WarningEvent,
    error_event,
)
from peargarden.agent.result import BeatResult, Reply
from peargarden.errors import PearError
from peargarden.providers.base import take_back

__all__ = ["Answer", "ApprovalPrompt", "Approver", "Beat", "BeatResult", "PageItem"]


class ApprovalPrompt(msgspec.Struct):
    """A tool call waiting for the user's answer (the sandbox said ``ask``)."""

    request: ApprovalRequest
    _reply: ApprovalAnswer | None = None
    _ready: threading.Event = msgspec.field(default_factory=threading.Event)

    def answer(self, reply: ApprovalAnswer | None) -> None:
        self._reply = reply
        self._ready.set()

    def reply(self, choice: Answer, text: str = "") -> None:
        """The user's answer: ``once``, ``session``, ``card`` or ``deny`` (with *text*, words typed
        instead of a choice: a deny the model reads)."""
        self.answer(ApprovalAnswer(choice, text))

    def dismiss(self) -> None:
        """No answer (the user left): the call is not run."""
        self.answer(None)


class PageItem(msgspec.Struct):
    """What the beat hands the page that iterates it besides its events, in order with them: a card's
    scripts hear the events up to the request before it is sent (``live_events``).  *item* is the
    JSON the page gets (its ``type`` says what it is)."""

    item: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return dict(self.item)


# The beat's own run: given the approver to ask and the beat to fill, the events in order.
BeatStart = Callable[["Beat", Approver | None], Iterator[AgentEvent]]

_END = object()


class Beat:
    """One user action and everything the model did for it (see the module's docstring)."""

    def __init__(
        self,
        action: str,
        start: BeatStart | None,
        *,
        speaker: str = "",
        cancel: threading.Event | None = None,
        approver: Approver | None = None,
        release: Callable[[], None] | None = None,
    ) -> None:
        self.id = secrets.token_hex(6)
        self.action = action
        self.cancel = cancel or threading.Event()
        self.started = time.time()
        # Filled while the beat runs (the service adds requests and entries); published as
        # :attr:`result` when the last event has been produced.
        self.record = BeatResult(action, generated=start is not None)
        self.result: BeatResult | None = None
        self._speaker = speaker
        self._speakers = 0  # speaker events seen (a group chat's beat has one per reply)
        self._start = start
        self._approver = approver
        self._used = False
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        if start is None:  # nothing to generate (a swipe that showed a kept reply): over at once
            self.result = self.record
        if release is not None:  # a beat dropped unread must not keep the chat
            weakref.finalize(self, release)

    @classmethod
    def failed(cls, action: str, error: PearError) -> Beat:
        """A beat that could not start (the chat is busy, the message is empty…): its events are the
        ``error`` and ``done`` a front shows for any failed beat."""

        def start(_beat: Beat, _approver: Approver | None) -> Iterator[AgentEvent]:
            raise error  # when the beat runs, like a failure of a beat that had started

        return cls(action, start)

    # -- running -----------------------------------------------------------------------------------

    def stop(self) -> None:
        """End the beat from any thread: the model call stops and what was written is kept."""
        self.cancel.set()

    @property
    def running(self) -> bool:
        return self.result is None

    def events(self) -> Iterator[AgentEvent]:
        """The beat on the caller's thread; approvals go to the approver given to ``play``."""
        return self._run(self._approver)

    def __iter__(self) -> Iterator[AgentEvent | ApprovalPrompt | PageItem]:
        while (item := self.next_item()) is not None:
            yield item

    def hand(self, item: PageItem | WarningEvent) -> None:
        """From the beat's own thread (a request hook): *item* to the front iterating the beat, after
        the events so far; a warning goes into the record too."""
        if isinstance(item, WarningEvent):
            self.record.warnings.append(item.message)
        self._queue.put(item)

    def next_item(self, on_wait: Callable[[], None] | None = None) -> AgentEvent | ApprovalPrompt | PageItem | None:
        """The next event or approval prompt from the worker thread; ``None`` once the beat is over.

        Waits in short steps so a KeyboardInterrupt reaches the caller, who may call :meth:`stop`
        and then keep calling this to collect the rest of the beat (it ends with ``done``);
        *on_wait* is called at each step that brought nothing (a front's "still waiting" line).
        """
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="pear-beat", daemon=True)
            self._thread.start()
        while True:
            try:
                item = self._queue.get(timeout=0.1)
            except queue.Empty:
                if on_wait is not None:
                    on_wait()
                continue
            if item is _END:
                self._thread.join()
                self._queue.put(_END)  # asked again: still over
                return None
            return item  # type: ignore[return-value]

    def _work(self) -> None:
        try:
            for event in self._run(self._ask):
                self._queue.put(event)
        finally:
            self._queue.put(_END)

    def _ask(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        prompt = ApprovalPrompt(request)
        self._queue.put(prompt)
        while not prompt._ready.wait(0.1):
            if self.cancel.is_set():
                return None
        return prompt._reply

    def _note(self, event: AgentEvent) -> None:
        """The event into the record: a ``speaker`` event (a group chat) opens that member's reply
        (the beat's first reply is the first speaker's), the rest goes into the current reply."""
        if isinstance(event, SpeakerEvent):
            if self._speakers:
                self.record.replies.append(Reply(event.name))
            else:
                self.record.replies[-1].speaker = event.name
            self._speakers += 1
            return
        _note(self.record, event)

    def _run(self, approver: Approver | None) -> Iterator[AgentEvent]:
        """The beat's events, noted into the record as they pass; a failure of ours ends the beat
        with ``error`` and ``done`` instead of an exception (the user's message is already kept)."""
        if self._used:
            raise RuntimeError("a beat runs once")
        self._used = True
        if self._start is None:
            return
        record = self.record
        record.replies.append(Reply(self._speaker))
        try:
            try:
                for event in self._start(self, approver):
                    self._note(event)
                    yield event
            except PearError as error:
                record.error = error
                for event in (error_event(error), DoneEvent(stop_reason="error")):
                    self._note(event)
                    yield event
            except Exception as error:  # never let a beat die without its done
                for event in (ErrorEvent(message=f"{type(error).__name__}: {error}"), DoneEvent(stop_reason="error")):
                    self._note(event)
                    yield event
        finally:
            # The reply's time, when the service noted it as the reply ended (after-beat work such
            # as scene notes is not the reply's); else the whole beat's.
            record.seconds = record.seconds or round(time.time() - self.started, 2)
            self.result = record


def _note(record: BeatResult, event: AgentEvent) -> None:
    reply = record.replies[-1]
    if isinstance(event, TextDeltaEvent):
        reply.text_parts.append(event.text)
    elif isinstance(event, TextRetractEvent):
        reply.text_parts[:] = [take_back(reply.text, event.text)]
    elif isinstance(event, ThinkingDeltaEvent):
        reply.reasoning_parts.append(event.text)
    elif isinstance(event, WarningEvent):
        record.warnings.append(event.message)
    elif isinstance(event, DoneEvent):
        record.stop_reason = reply.stop_reason = event.stop_reason
        record.usage = dict(event.usage)
