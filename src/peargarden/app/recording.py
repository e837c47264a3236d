"""A chat's provider that keeps the requests of its last beats: the web's prompt inspector shows the
exact requests the model was sent (story memory's side calls among them, see :meth:`RecordingProvider.tee`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from peargarden.providers.base import ChatRequest, StreamEvent

__all__ = ["KEEP_BEATS", "ChatRequest", "RecordingProvider", "SideRecorder"]

KEEP_BEATS = 10


class RecordingProvider:
    """The chat's provider, keeping every request of the last beats (the inspector's "exact request")."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "provider")
        self.beats: list[list[ChatRequest]] = []
        self._current: list[ChatRequest] | None = None

    def begin_beat(self) -> None:
        self._current = []
        self.beats.append(self._current)
        del self.beats[:-KEEP_BEATS]

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        if self._current is not None:
            self._current.append(request)
        return self.inner.stream(request, cancel)  # type: ignore[no-any-return]

    def list_models(self) -> list[str]:
        return self.inner.list_models()  # type: ignore[no-any-return]

    def tee(self, other: Any) -> SideRecorder:
        """*other* (the side connection of story memory), its requests kept with this chat's beats."""
        return SideRecorder(self, other)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class SideRecorder:
    """A side connection whose requests go into the chat's :class:`RecordingProvider` beat list."""

    def __init__(self, owner: RecordingProvider, inner: Any) -> None:
        self.owner = owner
        self.inner = inner
        self.name = getattr(inner, "name", "provider")

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        if self.owner._current is not None:
            self.owner._current.append(request)
        return self.inner.stream(request, cancel)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
