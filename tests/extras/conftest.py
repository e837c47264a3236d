"""Fixtures for the features beside the chat (translation, expressions, voices, pictures, themes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from extras_world import World

from kit.apps import seeded_home
from peargarden.testing.fake_media import FakeMediaServer
from peargarden.testing.fake_openai import FakeOpenAIServer


@pytest.fixture
def world(home_dir: Path) -> Iterator[World]:
    home = seeded_home(home_dir)
    with FakeOpenAIServer() as model, FakeMediaServer(api_key="media-key") as media:
        found = World(home, model, media)
        found.configure()
        yield found
