"""A Vue status bar written the way kai's TavernHelper template is (issue 45 items 1–3), in real
Chromium on the real page: the global ``Vue``, Pinia and async-wait-until from their CDN addresses and a
bare ``import 'vue'`` come from the npm packages — no host question, no network, one Vue in the frame —
and, the card's scripts allowed, the bar's ``updateVariablesWith`` writes its normalised variables to
the chat as a script would.  Two beats, a swipe and a reload, the values after each, 0 page errors.
The same card whose scripts were never allowed shows the same values but writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from status_card import message_stat, page_errors, reply, send, status_bar, tavern_config, wait_text
from vue_card import CARD, CLOSED_CARD, add_vue_card, packages_installed
from web_harness import LiveServer, Served, beats_done, open_new_chat, wait_ready

from peargarden.app.play.remote_modules import hosts_state
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.skipif(
    not packages_installed(), reason="the frames' npm packages are not installed (scripts/setup.sh)"
)


@pytest.fixture(scope="module")
def vue_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("vue-home"))
    seed_home(home)
    add_vue_card(home)
    add_vue_card(home, CLOSED_CARD, scripts_allowed=None)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def _wait_stat(page: Page, served: Served, card: str, chat_id: str, message: int, want: dict[str, Any]) -> None:
    for _ in range(100):
        if message_stat(served.url, card, chat_id, message)["林晚"] == want:
            return
        page.wait_for_timeout(100)
    assert message_stat(served.url, card, chat_id, message)["林晚"] == want


def test_a_vue_bar_with_pinia_from_the_cdn_plays_and_writes(vue_served: Served, page: Page) -> None:
    errors = page_errors(page)
    vue_served.fake.script([
        text_reply(reply("林晚笑得眉眼弯弯。", "_.set('林晚.好感度', 10, 150);//喜出望外")),
        text_reply(reply("林晚低头拨算盘。", "_.set('林晚.好感度', 100, 60);//冷静下来")),
        text_reply(reply("林晚別过脸去。", "_.set('林晚.好感度', 100, -5);//生气了")),
    ])  # fmt: skip
    chat_id = open_new_chat(page, vue_served.url, CARD)

    send(page, "掌柜的，来壶龙井。", 1)
    first = status_bar(page, 2)
    wait_text(first, "#好感", "好感度：100")  # the schema's clamp, drawn by Vue from the Pinia store
    assert first.locator("#阶段").inner_text() == "亲密"
    assert first.locator("#同一").inner_text() == "同一个 Vue"  # the bare 'vue' is the frame's global
    # The bar wrote its normalised variables back, as the chat's own (a script's write).
    _wait_stat(page, vue_served, CARD, chat_id, 2, {"好感度": 100, "心情": "平静", "$阶段": "亲密"})
    # MVU's own write from the bar, a promise as MVU's is: the chat keeps it too.
    assert first.evaluate("""() => {
      const option = { type: 'message', message_id: 2 };
      const data = getVariables(option);
      data.stat_data.林晚.心情 = '雀跃';
      return Mvu.replaceMvuData(data, option) instanceof Promise;
    }""")
    _wait_stat(page, vue_served, CARD, chat_id, 2, {"好感度": 100, "心情": "雀跃", "$阶段": "亲密"})

    send(page, "今天生意好吗？", 2)
    second = status_bar(page, 4)
    wait_text(second, "#好感", "好感度：60")
    assert second.locator("#阶段").inner_text() == "相识"
    _wait_stat(page, vue_served, CARD, chat_id, 4, {"好感度": 60, "心情": "雀跃", "$阶段": "相识"})
    assert first.locator("#好感").inner_text() == "好感度：100"  # its own message's values

    page.locator("#messages .swipe-next").click()
    beats_done(page, 3)
    wait_text(status_bar(page, 4), "#好感", "好感度：0")
    _wait_stat(page, vue_served, CARD, chat_id, 4, {"好感度": 0, "心情": "雀跃", "$阶段": "相识"})

    page.reload()
    wait_ready(page)
    wait_text(status_bar(page, 2), "#好感", "好感度：100")
    wait_text(status_bar(page, 4), "#好感", "好感度：0")
    # No host was asked about or fetched from: the libraries are the packages'.
    assert page.locator(".remote-ask").count() == 0
    hosts = hosts_state(vue_served.home, CARD)
    assert hosts["hosts"] == {} and hosts["pins"] == []
    assert errors == []


def test_a_bar_of_a_card_whose_scripts_are_not_allowed_writes_nothing(vue_served: Served, page: Page) -> None:
    vue_served.fake.script([text_reply(reply("林晚笑得眉眼弯弯。", "_.set('林晚.好感度', 10, 150);//喜出望外"))])
    chat_id = open_new_chat(page, vue_served.url, CLOSED_CARD)
    send(page, "掌柜的，来壶龙井。", 1)
    bar = status_bar(page, 2)
    wait_text(bar, "#好感", "好感度：100")  # it reads and draws as before
    bar.wait_for_function("() => document.body.dataset.refused")
    refused = bar.evaluate("() => document.body.dataset.refused")
    assert "状态栏只能读取" in refused and "updateVariablesWith" in refused
    assert "wrote" not in bar.evaluate("() => Object.keys(document.body.dataset)")
    # The page never sent it: the chat keeps the model's value.
    page.wait_for_timeout(500)
    assert message_stat(vue_served.url, CLOSED_CARD, chat_id, 2)["林晚"] == {"好感度": 150, "心情": "平静"}
