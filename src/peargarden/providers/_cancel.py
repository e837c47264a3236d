"""Make a cancel event interrupt a read that is blocked waiting for the next chunk.

Checking the event between chunks is not enough when the server goes quiet (a reasoning model
thinking without streaming, a stalled proxy): the reading thread sits in ``recv`` until the read
timeout.  Closing the response from another thread does not wake it; shutting the socket down
does.  So a small watcher thread shuts the response's socket when the event is set, and the
reader sees a connection error that the provider turns into ``Done("aborted")``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

_POLL_SECONDS = 0.05


class CancelWatch:
    def __init__(self, cancel: threading.Event | None, response: Any) -> None:
        self._cancel = cancel
        self._response = response
        self._finished = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> CancelWatch:
        if self._cancel is not None and _socket_of(self._response) is not None:
            self._thread = threading.Thread(target=self._watch, name="pear-cancel-watch", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._finished.set()

    def _watch(self) -> None:
        assert self._cancel is not None
        while not self._finished.is_set():
            if self._cancel.wait(_POLL_SECONDS):
                if not self._finished.is_set():
                    sock = _socket_of(self._response)
                    if sock is not None:
                        with contextlib.suppress(OSError):
                            sock.shutdown(socket.SHUT_RDWR)
                return


def _socket_of(response: Any) -> socket.socket | None:
    """The TCP socket under an httpx2 response, when the transport exposes it."""
    try:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
    except Exception:  # any transport without these hooks (e.g. a mock transport)
        return None
    return sock if isinstance(sock, socket.socket) else None
