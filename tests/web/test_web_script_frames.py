"""A card's TavernHelper scripts run in the chat page (issue 45, item 2): each in a sandboxed frame of its
own, with TavernHelper's API over the bridge and the server (app/play/page_scripts.py).  Real Chromium,
the real page, the fake model: the script's panel (drawn into "the page" through ``window.parent``)
shows the variables and follows a beat (the reply as SillyTavern shows it, ``retrieveDisplayedMessage``,
is an empty selection here: our page draws the chat); its buttons are in the chat bar; a button's
handler writes chat variables (kept in the chat), runs STscript on the chat and asks the model (a side
request: nothing written); its toast is the page's."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from script_card import CARD, add_script_card
from status_card import frame_of, reply, tavern_config, wait_text
from web_harness import LiveServer, Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.quick_reply_files import read_global_variables
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page


@pytest.fixture(scope="module")
def scripts_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("scripts-home"))
    seed_home(home)
    add_script_card(home)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def panel(page: Page) -> Frame:
    """The frame of the script that draws the panel."""
    return frame_of(page.locator("#script-frames iframe[title='脚本：账本面板']"))


def _variables(served: Served, chat_id: str) -> dict[str, Any]:
    url = f"{served.url}/api/chats/{urllib.parse.quote(CARD)}/{chat_id}/variables"
    with urllib.request.urlopen(url) as answer:
        return dict(json.loads(answer.read()))


def test_a_cards_scripts_run_in_the_page(scripts_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    scripts_served.fake.script([
        text_reply(reply("阿梨收下房租。", "_.set('房东.资金', 30, 58);//收租")),
        text_reply("晴，有风。"),
    ])  # fmt: skip
    chat_id = open_new_chat(page, scripts_served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='2']")
    frame = page.locator("#script-frames iframe[title='脚本：账本面板']")
    assert frame.get_attribute("sandbox") == "allow-scripts"
    wait_text(panel(page), "#阿梨面板 .资金", "资金：30")  # the greeting's variables ([initvar])
    page.wait_for_function("document.querySelectorAll('#script-frames .script-frame:not(.empty)').length === 1")
    shown = page.locator("#script-frames .script-frame:not(.empty)")
    assert shown.inner_text().startswith("账本面板")  # MVU draws nothing: no room

    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    wait_text(panel(page), "#阿梨面板 .资金", "资金：58")  # after MESSAGE_RECEIVED
    # The shown message is our page's, out of a frame's reach: an empty selection, said once.
    wait_text(panel(page), "#阿梨面板 .楼", "显示的楼层 0")
    page.wait_for_function(
        "(document.getElementById('script-panel')?.textContent || '').includes('retrieveDisplayedMessage')"
    )
    # Its icon from the web: refused by the frame's CSP, said in a line of the panel.
    assert "api.iconify.design 的图片（这里不从网络加载）" in (page.locator("#script-panel").text_content() or "")

    # The script's buttons are in the chat bar; a click is the button's event.
    buttons = page.locator("#script-buttons button")
    assert buttons.all_inner_texts() == ["记账", "问天气"]
    buttons.nth(0).click()
    wait_text(panel(page), "#阿梨面板 .账", "记账 1 次")
    page.wait_for_function("() => (document.getElementById('toast')?.textContent || '').includes('账本：记了 1 次')")
    assert _variables(scripts_served, chat_id)["chat"]["记账次数"] == 1  # kept in the chat
    assert read_global_variables(scripts_served.home).get("最后记账") == "阿梨"  # /setglobalvar ran

    buttons.nth(1).click()
    wait_text(panel(page), "#阿梨面板 .天气", "天气：晴，有风。")
    request = scripts_served.fake.chat_requests[-1].body
    assert request["messages"][-1] == {"role": "user", "content": "今天天气怎么样？"}
    assert _variables(scripts_served, chat_id)["last"] == 2  # a side request: nothing written
    assert errors == []
