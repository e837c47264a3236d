"""A real script card from ../shared/fixtures/thirdparty/script-cards (the tests that use one skip without
it) served as a new user gets it: imported through ``pear import`` with its scripts and regex allowed,
in tavern mode on the fake model.  Nothing of the cards is copied here."""

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
LANDLORD_CARD = "房东模拟器Z5.20"
STAGEDOG = "StageDog_tavern_resource__变量更新-角色卡.png"
STAGEDOG_CARD = "MVU正则"


def real_card_served(tmp_path_factory: pytest.TempPathFactory, file: str, name: str) -> Iterator[Served]:
    """A data folder named *name* holding the card *file*, imported, served with the fake model."""
    card = thirdparty("script-cards", file)
    home = tmp_path_factory.mktemp(name)
    pear(home, "init", check=True)
    pear(home, "import", card, "--scripts", "allow", "--regex", "allow", check=True)
    with FakeOpenAIServer() as fake:
        (home / "config.toml").write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(Home(home)) as server:
            yield Served(Home(home), server, fake)
