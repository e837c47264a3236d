"""The context bar's budget in story modes: the story's context_tokens, or the model's own window
when that is smaller and known (the embedded model runs at most 8192 tokens)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from peargarden.app.play.chat_chrome import context_fill
from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.errors import NotFound
from peargarden.providers.scripted import ScriptedProvider
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


class WindowedProvider(ScriptedProvider):
    """A provider that knows the window it runs its model with, as the embedded one does."""

    def __init__(self, window: Any) -> None:
        super().__init__([])
        self._window = window

    @property
    def n_ctx(self) -> int:
        if isinstance(self._window, Exception):
            raise self._window
        return int(self._window)


def _limit(home_dir: Path, provider: Any) -> int:
    home = Home(home_dir)
    seed_home(home)

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "m", False, "off")

    session = PearApp(home, provider_factory=factory, story_memory=False).new_chat("青梧")
    return int(context_fill(session.page_source(session.char_name), [])["limit"])


@pytest.mark.parametrize(
    ("provider", "limit"),
    [
        (ScriptedProvider([]), 32768),  # an endpoint says nothing of its window: the story's budget
        (WindowedProvider(8192), 8192),  # the embedded model's window is smaller: the bar shows it
        (WindowedProvider(131072), 32768),  # a larger window: the story's budget still decides
        (WindowedProvider(NotFound("没有模型文件")), 32768),  # no model file yet: the beat will say so
    ],
)
def test_the_story_bar_is_measured_against_the_smaller_budget(home_dir: Path, provider: Any, limit: int) -> None:
    assert _limit(home_dir, provider) == limit
