"""A connection's own sampler fields on every request (``[providers.<name>.sampler]``).

Wraps any provider; the connection's values replace the request's for the same keys (a connection
that must run at temperature 0.6 does so whatever the preset says)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec.structs

from .base import ChatRequest, Provider, StreamEvent


class SampledProvider:
    def __init__(self, inner: Provider, sampler: Mapping[str, Any], connection: str = "") -> None:
        self.inner = inner
        self.sampler = dict(sampler)  # replaced in place when the connection's settings change
        self.connection = connection
        self.name = inner.name

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        return self.inner.stream(msgspec.structs.replace(request, sampler={**request.sampler, **self.sampler}), cancel)

    def list_models(self) -> list[str]:
        return self.inner.list_models()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def retune(provider: Any, connection: str, sampler: Mapping[str, Any]) -> bool:
    """Give the :class:`SampledProvider` of *connection* somewhere in a chain of wrappers (each
    keeping the next as ``inner``) new values; ``False`` when the chain has none."""
    seen = 0
    while provider is not None and seen < 8:
        if isinstance(provider, SampledProvider) and provider.connection == connection:
            provider.sampler = dict(sampler)
            return True
        provider, seen = getattr(provider, "__dict__", {}).get("inner"), seen + 1
    return False
