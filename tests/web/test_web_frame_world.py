"""The frame world (issue 45, item 1): a status bar written for TavernHelper's same-origin frames reaches
its host through ``window.parent`` / ``window.top`` and finds ``Mvu``, ``TavernHelper``, ``SillyTavern``,
``$``, ``_``, ``YAML``, ``z`` and ``toastr`` there, in our sandboxed frame.  Real Chromium, the real page:
two beats, a swipe and a reload, the bar's values after each, 0 page errors; the one unknown
TavernHelper function fails with one line and is counted in the page's script panel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from host_card import CARD, add_host_card
from status_card import reply, send, status_bar, tavern_served, wait_text
from web_harness import Served, beats_done, open_new_chat, wait_ready

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page


@pytest.fixture(scope="module")
def world_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("world-home"))
    seed_home(home)
    add_host_card(home)
    with tavern_served(home) as served:
        yield served


def test_a_bar_that_looks_for_its_host_finds_it(world_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"console: {message.text}")

    page.on("console", console)
    world_served.fake.script([
        text_reply(reply("阿梨收下房租，笑着点头。",
                         "_.set('房东.资金', 30, 58);//收租\n_.set('房东.心情', '平静', '高兴');")),
        text_reply(reply("阿梨记了一笔账。", "_.set('房东.资金', 58, 65);//又收一笔")),
        text_reply(reply("阿梨叹了口气。", "_.set('房东.资金', 58, 50);//修水管")),
    ])  # fmt: skip
    open_new_chat(page, world_served.url, CARD)

    send(page, "这个月的房租。", 1)
    first = status_bar(page, 2)
    wait_text(first, "#资金", "资金：58")
    assert first.locator("#心情").inner_text() == "心情：高兴"
    assert first.locator("#窗口").inner_text() == "宿主窗口"  # parent !== window, as in a frame
    assert first.locator("#名字").inner_text() == "房东阿梨/旅人"  # window.top.SillyTavern.getContext()
    assert first.locator("#顶层").inner_text() == "顶层=宿主"
    assert first.locator("#库").inner_text() == "YAML 1 / zod 2"
    wait_text(first, "#未知", "未知函数：TavernHelper.getTavernHelperSecret 在梨园里没有")
    page.wait_for_selector("#toast:not([hidden])")
    assert "房东：状态栏就绪" in page.locator("#toast").inner_text()
    # The unknown function: one line in the page's script panel, counted once for this bar.
    page.wait_for_selector("body[data-script-notes='1']")
    assert "TavernHelper.getTavernHelperSecret" in (page.locator("#script-panel").text_content() or "")

    send(page, "还有水电费。", 2)
    wait_text(status_bar(page, 4), "#资金", "资金：65")
    assert first.locator("#资金").inner_text() == "资金：58"  # its own message's values

    page.locator("#messages .swipe-next").click()
    beats_done(page, 3)
    wait_text(status_bar(page, 4), "#资金", "资金：50")

    page.reload()
    wait_ready(page)
    wait_text(status_bar(page, 2), "#资金", "资金：58")
    wait_text(status_bar(page, 4), "#资金", "资金：50")
    assert errors == []
