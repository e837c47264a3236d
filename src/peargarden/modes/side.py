"""The side model as a mode's steps call it: one system + user request, the reply's text back.

The service builds one :class:`ProviderSideCall` per beat over the chat's side connection (or its
main model when none is configured) and passes it to the mode's steps as a
:class:`~peargarden.modes.base.SideCall`; ``pear story compact`` builds one the same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from peargarden.agent.thinking import parse_level
from peargarden.errors import ProviderError
from peargarden.providers.base import THINKING_LEVELS, ChatRequest, Provider, ThinkingLevel, stream_text


class ProviderSideCall:
    """A ``SideCall`` over one provider (thinking dropped from the reply).  Setting *cancel* (the
    beat's stop event: Ctrl-C, the web's stop button) ends a call with a ``ProviderError``;
    *observe* sees each request before it is sent, with its purpose (the beat's record)."""

    def __init__(
        self,
        provider: Provider,
        model: str = "",
        thinking: ThinkingLevel = "off",
        cancel: threading.Event | None = None,
        observe: Callable[[ChatRequest, str], None] | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.thinking = thinking
        self.cancel = cancel
        self.observe = observe

    def __call__(self, system: str, user: str, max_tokens: int, *, purpose: str = "side") -> str:
        request = ChatRequest(
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            model=self.model,
            sampler={"max_tokens": max_tokens},
            thinking=self.thinking,
        )
        if self.observe is not None:
            self.observe(request, purpose)
        stream = self.provider.stream(request, self.cancel)
        text = stream_text(stream)
        if self.stopped():
            raise ProviderError("已中止")
        return text

    def stopped(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()


def side_thinking(level: str) -> ThinkingLevel:
    """The side connection's configured thinking level; ``off`` when it names none we know."""
    return parse_level(level) if level in THINKING_LEVELS else "off"
