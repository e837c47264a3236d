"""Run a beat on a worker thread so the front's thread stays free (Ctrl-C, a web request loop).

    runner = BeatRunner(lambda approver: chat.send(text, cancel=cancel, approver=approver), cancel)
    for item in runner:                     # events, and ApprovalPrompt items to answer
        if isinstance(item, ApprovalPrompt):
            item.answer(ApprovalAnswer("once"))
        ...
    runner.stop()                           # from a signal handler or another thread: ends the beat

Approvals asked by the loop (on the worker) are handed to the consuming thread as
:class:`ApprovalPrompt` items; the worker waits for :meth:`ApprovalPrompt.answer`.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from peargarden.agent.approvals import Answer, ApprovalAnswer, ApprovalRequest, Approver
from peargarden.agent.events import AgentEvent, DoneEvent, ErrorEvent
from peargarden.errors import PearError

# The fronts' approvers are typed with these (a front answers through ApprovalPrompt).
__all__ = ["Answer", "ApprovalPrompt", "Approver", "BeatRunner"]


@dataclass
class ApprovalPrompt:
    request: ApprovalRequest
    _reply: ApprovalAnswer | None = None
    _ready: threading.Event = field(default_factory=threading.Event)

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


_END = object()


class BeatRunner:
    def __init__(self, start: Callable[[Approver], Iterator[AgentEvent]], cancel: threading.Event | None = None):
        self.cancel = cancel or threading.Event()
        self._start = start
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        # The error that ended the beat, when it was one of ours (its exit code is the CLI's).
        self.failure: PearError | None = None

    def stop(self) -> None:
        self.cancel.set()

    def _approver(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        prompt = ApprovalPrompt(request)
        self._queue.put(prompt)
        while not prompt._ready.wait(0.1):
            if self.cancel.is_set():
                return None
        return prompt._reply

    def _work(self) -> None:
        try:
            for event in self._start(self._approver):
                self._queue.put(event)
        except PearError as error:
            self.failure = error
            self._queue.put(ErrorEvent(message=str(error)))
            self._queue.put(DoneEvent(stop_reason="error"))
        except Exception as error:  # never let a worker die silently
            self._queue.put(ErrorEvent(message=f"{type(error).__name__}: {error}"))
            self._queue.put(DoneEvent(stop_reason="error"))
        finally:
            self._queue.put(_END)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="pear-beat", daemon=True)
            self._thread.start()

    def next_item(self, on_wait: Callable[[], None] | None = None) -> AgentEvent | ApprovalPrompt | None:
        """The next event or approval prompt; ``None`` once the beat is over.

        Waits in short steps so a KeyboardInterrupt reaches the caller, who may call :meth:`stop`
        and then keep calling this to collect the rest of the beat (it ends with ``done``);
        *on_wait* is called at each step that brought nothing (a front's "still waiting" line).
        """
        self.start()
        while True:
            try:
                item = self._queue.get(timeout=0.1)
            except queue.Empty:
                if on_wait is not None:
                    on_wait()
                continue
            if item is _END:
                if self._thread is not None:
                    self._thread.join()
                return None
            return item  # type: ignore[return-value]

    def __iter__(self) -> Iterator[AgentEvent | ApprovalPrompt]:
        while (item := self.next_item()) is not None:
            yield item
