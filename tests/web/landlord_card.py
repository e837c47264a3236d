"""房东模拟器 (../shared/fixtures/thirdparty/script-cards; the tests that use it skip without it) served as a
new user gets it: imported through ``pear import`` with its scripts and regex allowed, in tavern mode on
the fake model.  Nothing of the card is copied here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from status_card import tavern_config
from web_harness import LiveServer, Served

from kit.cli import pear_in_process as pear
from kit.thirdparty import thirdparty
from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home

LANDLORD = "KelvinKHan_landlord-simulator-character-card__房东模拟器Z5.20.json"
CARD = "房东模拟器Z5.20"


def landlord_served(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Served]:
    """A data folder named *name* holding the imported card, served with the fake model."""
    card = thirdparty("script-cards", LANDLORD)
    home = tmp_path_factory.mktemp(name)
    pear(home, "init", check=True)
    pear(home, "import", card, "--scripts", "allow", "--regex", "allow", check=True)
    with FakeOpenAIServer() as fake:
        (home / "config.toml").write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(Home(home)) as server:
            yield Served(Home(home), server, fake)
