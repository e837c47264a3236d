"""Wake a read that is blocked on a silent server: a cancel (Ctrl-C, the stop button) or a timeout.

Checking the cancel event between chunks is not enough when the server goes quiet (a reasoning
model thinking without streaming, a stalled proxy, an endpoint that never answers): the reading
thread sits in ``recv`` until the socket's read timeout.  Closing the response from another thread
does not wake it; shutting the socket down does, and before the response exists (waiting for the
status line) closing the HTTP client does.  So a small watcher thread runs *interrupt* once when
the event is set, when nothing arrived for *idle* seconds, or at the *deadline*; the reader then
sees a connection error, and :attr:`CancelWatch.fired` says why ("cancel", "idle", or the
deadline's reason: "total", "first_byte").
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

_POLL_SECONDS = 0.05


class ByteTap:
    """Counts what a response body delivers: when the last bytes came, and the first ones (for
    messages that must say what an endpoint sent instead of a stream)."""

    KEEP = 200

    def __init__(self) -> None:
        self.head = b""
        self.total = 0
        self.last = time.monotonic()

    def wrap(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for data in chunks:
            self.last = time.monotonic()
            if len(self.head) < self.KEEP:
                self.head += data[: self.KEEP - len(self.head)]
            self.total += len(data)
            yield data


class CancelWatch:
    def __init__(
        self,
        cancel: threading.Event | None,
        response: Any = None,
        *,
        interrupt: Callable[[], None] | None = None,
        idle: float | None = None,
        deadline: float | None = None,
        deadline_reason: str = "total",
        tap: ByteTap | None = None,
    ) -> None:
        self._cancel = cancel
        self._response = response
        self._interrupt = interrupt
        self._idle = idle
        self._deadline = deadline
        self._deadline_reason = deadline_reason
        self._tap = tap
        self._finished = threading.Event()
        # Held by the watcher from its look at the clock to the end of its interrupt, and by
        # __exit__: once the block is left, no interrupt of this watch runs any more (a late one
        # closed the client a retry had already taken up again: "the client has been closed").
        self._acting = threading.Lock()
        self._thread: threading.Thread | None = None
        self.fired: str | None = None

    def __enter__(self) -> CancelWatch:
        watching = self._cancel is not None or self._idle is not None or self._deadline is not None
        if watching and (self._interrupt is not None or _socket_of(self._response) is not None):
            self._thread = threading.Thread(target=self._watch, name="pear-cancel-watch", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._acting:
            self._finished.set()

    def _reason(self) -> str | None:
        if self._cancel is not None and self._cancel.is_set():
            return "cancel"
        now = time.monotonic()
        if self._deadline is not None and now >= self._deadline:
            return self._deadline_reason
        if self._idle is not None and self._tap is not None and now - self._tap.last >= self._idle:
            return "idle"
        return None

    def _watch(self) -> None:
        while not self._finished.wait(_POLL_SECONDS):
            with self._acting:
                if self._finished.is_set():  # the block was left while this look began
                    return
                reason = self.fired or self._reason()
                if reason is None:
                    continue
                self.fired = reason
                # Repeated until the reader is out: a connection still being set up when the limit
                # hit has no socket to shut yet, so the first interrupt may find nothing to wake.
                if self._interrupt is not None:
                    with contextlib.suppress(Exception):
                        self._interrupt()
                else:
                    sock = _socket_of(self._response)
                    if sock is not None:
                        with contextlib.suppress(OSError):
                            sock.shutdown(socket.SHUT_RDWR)


def _socket_of(response: Any) -> socket.socket | None:
    """The socket an answer's body comes over (:attr:`.wire.Response.socket`), when it has one."""
    sock = getattr(response, "socket", None)
    return sock if isinstance(sock, socket.socket) else None
