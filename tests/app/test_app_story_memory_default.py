"""Story memory is off by default when the side model would be the embedded demo model."""

from __future__ import annotations

from pathlib import Path

from peargarden.app.play.service import PearApp
from peargarden.app.settings.connections import Connection, resolve_provider
from peargarden.workspace.config import parse_settings
from peargarden.workspace.home import Home


def test_embedded_side_model_means_no_bookkeeping(home_dir: Path) -> None:
    app = PearApp(Home(home_dir))
    nothing = parse_settings("")
    embedded = resolve_provider(nothing)
    assert not app.keeps_story_memory(nothing, embedded)  # nothing configured: the embedded model
    remote = parse_settings(
        '[model]\nprovider = "ds"\nmodel = "deepseek-chat"\n[providers.ds]\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    assert app.keeps_story_memory(remote, resolve_provider(remote))  # the side model follows the remote main model
    # ... also a main model given by flags (pear chat --base-url) or by the web app.
    assert app.keeps_story_memory(nothing, resolve_provider(nothing, Connection("http://127.0.0.1:9/v1", "m")))
    local_side = parse_settings('[side_model]\nprovider = "local"\n')
    assert not app.keeps_story_memory(local_side, resolve_provider(remote))  # a configured embedded side model
    app.story_memory = True
    assert app.keeps_story_memory(nothing, embedded)  # an explicit choice wins
