"""The service on a seeded data folder with a scripted (or any injected) model, for app-level tests."""

from __future__ import annotations

from pathlib import Path

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, ResolvedProvider
from peargarden.providers.base import Provider
from peargarden.workspace.config import Settings
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home


def seeded_home(root: Path) -> Home:
    """A data folder as ``pear init`` leaves it (the bundled card 青梧 and its lorebook)."""
    home = Home(root)
    seed_home(home)
    return home


def scripted_app(home: Home, provider: Provider, *, thinking: str = "medium", story_memory: bool = False) -> PearApp:
    """A ``PearApp`` whose every chat talks to *provider* (story memory off unless asked)."""

    def factory(settings: Settings, conn: Connection | None) -> ResolvedProvider:
        return ResolvedProvider(provider, "scripted", False, thinking)

    return PearApp(home, provider_factory=factory, story_memory=story_memory)
