"""Story memory is off by default when the side model would be the embedded demo model."""

from __future__ import annotations

from pathlib import Path

from peargarden.app.service import PearApp
from peargarden.modes.stage.memory import story_memory_on
from peargarden.workspace.config import parse_settings
from peargarden.workspace.home import Home


def test_embedded_side_model_means_no_bookkeeping(home_dir: Path) -> None:
    app = PearApp(Home(home_dir))
    assert not story_memory_on(app, parse_settings(""))  # nothing configured: the embedded model
    remote = parse_settings(
        '[model]\nprovider = "ds"\nmodel = "deepseek-chat"\n[providers.ds]\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    assert story_memory_on(app, remote)  # the side model follows the remote main model
    app.story_memory = True
    assert story_memory_on(app, parse_settings(""))  # an explicit choice wins
