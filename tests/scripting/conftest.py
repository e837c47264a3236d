"""The ``chat`` fixture: a chat with our own card whose scripts run in their own process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kit.script_chats import Chat, ChatFactory, own_card
from peargarden.app.play.script_process import ScriptLimits


@pytest.fixture
def chat() -> Iterator[ChatFactory]:
    made: list[Chat] = []

    def make(
        card: dict[str, Any] | None = None,
        *,
        replies: list[str] | None = None,
        limits: ScriptLimits | None = None,
        worlds: Any = None,
    ) -> Chat:
        made.append(Chat(card or own_card(), replies or [], limits, worlds))
        return made[-1]

    yield make
    for one in made:
        one.session.close()
