"""The features beside the chat in Chromium (issue 48): translation, expressions, voices, pictures and
themes on the chat page and the extensions page, each back end a local fake (peargarden.testing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from web_harness import Served, beats_done, fake_provider_config, open_new_chat, screenshot

from peargarden.testing.fake_media import FakeMediaServer
from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture(scope="module")
def media() -> Iterator[FakeMediaServer]:
    with FakeMediaServer() as server:
        yield server


Configure = Callable[[str], None]


@pytest.fixture
def configure(served: Served) -> Iterator[Configure]:
    """Write config.toml: the fake model plus the tables a test names; put back as it was after."""

    def write(extra: str) -> None:
        served.home.config_file.write_text(fake_provider_config(served.fake.base_url) + extra, encoding="utf-8")

    yield write
    write("")


def _ready(page: Page) -> None:
    page.wait_for_selector("body[data-extras-ready='1']")


def test_translation_by_click_and_of_every_input(
    served: Served, media: FakeMediaServer, page: Page, configure: Configure
) -> None:
    configure(f'[translate]\nbackend = "libre"\nbase_url = "{media.url}"\nlanguage = "en"\n')
    chat_id = open_new_chat(page, served.url)
    _ready(page)
    assert "LibreTranslate" not in page.locator("#extras-panel").inner_text()
    assert "libre" in page.locator("#extras-panel").inner_text()
    greeting = page.locator("li.msg.assistant").first
    original = greeting.locator(".msg-text").first.inner_text()
    greeting.locator("button.translate").click()
    shown = greeting.locator(".msg-text.translated")
    shown.wait_for()
    assert shown.inner_text().startswith("«en»") and greeting.locator(".msg-text:not(.translated)").is_hidden()
    assert media.to("/translate")[-1].body["target"] == "en"
    greeting.locator("button.show-original").click()
    assert greeting.locator(".msg-text:not(.translated)").inner_text() == original and shown.is_hidden()
    # Kept with the chat: a reload shows the translation without asking the server again.
    asked = len(media.to("/translate"))
    page.reload()
    _ready(page)
    page.locator("li.msg.assistant .msg-text.translated").wait_for()
    assert len(media.to("/translate")) == asked
    screenshot(page, "extras-translated")

    # Every input: the model reads the card's language, the page shows the words typed.
    configure(f'[translate]\nbackend = "libre"\nbase_url = "{media.url}"\nlanguage = "en"\nauto = "inputs"\n')
    media.phrases[("Is there a room upstairs?", "zh")] = "楼上还有空房吗？"
    served.fake.script([text_reply("有的，客官。")])
    page.reload()
    _ready(page)
    page.fill("#composer", "Is there a room upstairs?")
    page.click("#send")
    beats_done(page, 1)
    sent = served.fake.chat_requests[-1].body["messages"]
    assert str(sent[-1]["content"]).endswith("楼上还有空房吗？")  # the stage puts its notes before it
    assert not any("Is there a room" in str(m["content"]) for m in sent)
    mine = page.locator("li.msg.user").last
    mine.locator(".msg-text.translated", has_text="Is there a room upstairs?").wait_for()
    mine.locator("button.show-original").click()
    assert "楼上还有空房吗？" in mine.locator(".msg-text:not(.translated)").inner_text()
    assert chat_id


def test_every_feature_says_it_is_off_when_none_is_configured(served: Served, page: Page, configure: Configure) -> None:
    configure("")
    open_new_chat(page, served.url)
    _ready(page)
    panel = page.locator("#extras-panel").inner_text()
    assert "翻译：未开启" in panel
    assert page.locator("li.msg button.translate").count() == 0
