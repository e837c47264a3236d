"""The bundled-SYSTEM.md warning is one a page user can act on: one click writes the bundled file into
the data folder (a vault snapshot first) and undo brings back what was there (issue 47, item 3)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from web_harness import LiveServer, beats_done, fake_provider_config, open_new_chat

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import bundled, seed_home
from peargarden.workspace.vault import Vault

if TYPE_CHECKING:
    from playwright.sync_api import Page

WARNING = "SYSTEM.md 缺失或为空"


@pytest.fixture
def served_home(tmp_path: Path) -> Iterator[tuple[Home, LiveServer]]:
    home = Home(tmp_path / "数据")
    seed_home(home)
    with FakeOpenAIServer() as fake:
        fake.default_reply = text_reply("客官请坐。")
        home.config_file.write_text(fake_provider_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield home, server


def send(page: Page, text: str, beats: int) -> None:
    page.fill("#composer", text)
    page.click("#send")
    beats_done(page, beats)


@pytest.mark.parametrize("before", ["empty", "missing"])
def test_the_warning_writes_the_bundled_file_and_undo_brings_back_what_was_there(
    page: Page, served_home: tuple[Home, LiveServer], before: str
) -> None:
    home, server = served_home
    if before == "empty":
        home.system_file.write_text("", encoding="utf-8")
    else:
        home.system_file.unlink()
    open_new_chat(page, server.base_url)
    send(page, "掌柜，还有空房吗？", 1)
    warning = page.locator("#warnings li", has_text=WARNING)
    assert warning.is_visible()
    warning.locator("button.fix-warning").click()
    page.locator("#warnings li.fixed").wait_for()
    assert home.system_file.read_bytes() == bundled("SYSTEM.md")
    assert page.locator("#warnings li", has_text=WARNING).count() == 0
    assert any("SYSTEM.md" in info.reason for info in Vault(home).snapshots())

    # The next beat uses the file: no warning.
    send(page, "那就住下了。", 2)
    assert page.locator("#warnings li", has_text=WARNING).count() == 0

    # Undo: the file as it was before the click (empty, or none at all); the warning is back next beat.
    page.locator("#warnings li.fixed button.undo-fix").click()
    page.locator("#warnings li.fixed").wait_for(state="detached")
    if before == "empty":
        assert home.system_file.read_text(encoding="utf-8") == ""
    else:
        assert not home.system_file.exists()
    send(page, "明早再走。", 3)
    assert page.locator("#warnings li", has_text=WARNING).is_visible()


def test_a_page_reload_still_offers_the_fix(page: Page, served_home: tuple[Home, LiveServer]) -> None:
    """The warning of the last beat comes back with the chat's state (not only in the beat's stream)."""
    home, server = served_home
    home.system_file.unlink()
    chat = open_new_chat(page, server.base_url)
    send(page, "掌柜？", 1)
    page.goto(f"{server.base_url}/chat/青梧/{chat}")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("#warnings li", has_text=WARNING).locator("button.fix-warning").click()
    page.locator("#warnings li.fixed").wait_for()
    assert home.system_file.read_bytes() == bundled("SYSTEM.md")
