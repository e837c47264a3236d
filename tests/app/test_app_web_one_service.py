"""The web app plays every chat with one service (issue 43): the chat hub's ``PearApp``, whose judge
and "always for this card" recorder are the service's defaults, as ``pear chat`` has them — not a
``PearApp`` made for each chat it opens."""

from __future__ import annotations

from pathlib import Path

from kit.apps import seeded_home
from kit.groups import connect, tea_house
from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.web.chat_hub import ChatHub


def test_every_chat_the_web_opens_is_played_by_the_hubs_one_service(home_dir: Path) -> None:
    home = tea_house(seeded_home(home_dir))
    with FakeOpenAIServer() as fake:
        connect(home, fake.base_url)
        hub = ChatHub(home)
        first, second = hub.new_chat("青梧"), hub.new_chat("林月")
        again = hub.chat("青梧", first.session.chat_id)
    assert first.session.app is hub.app and second.session.app is hub.app and again is first
    assert hub.app.judge is None and hub.app.record_card_grant is None  # the service's own, per chat and card
