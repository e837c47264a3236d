"""A member's status bar on a group chat's page: 林晚 (a Chinese MVU card whose display regex turns each
reply's placeholder into a status bar) speaks after 林月 in a group; her bar runs in its sandboxed frame
and reads the group chat's variables through the page's bridge (``GET /api/groups/…/variables``), as on
a card's own chat page, and follows the next round through MVU's update event."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from status_card import add_status_card, frame_of, reply, tavern_config, wait_text
from web_harness import LiveServer, Served, beats_done, wait_ready

from kit.groups import add_card, chinese_card
from peargarden.app.library.groups import create_group
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

GROUP = "茶馆二人"


@pytest.fixture(scope="module")
def group_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("group-status-home"))
    seed_home(home)
    add_status_card(home)
    add_card(home, "林月", chinese_card("林月", "茶馆的老板娘。", "欢迎光临，{{user}}。"))
    create_group(home, GROUP, ["林月", "林晚"], strategy="list", mode="tavern")
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def _post(served: Served, path: str) -> dict[str, Any]:
    request = urllib.request.Request(served.url + path, data=b"{}", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=20) as response:
        return dict(json.loads(response.read()))


def _her_bars(page: Page) -> Locator:
    """The status bars in 林晚's replies (the variables in force once MVU runs)."""
    return page.locator("#messages li.msg.assistant").filter(
        has=page.locator(".speaker", has_text="林晚")
    ).locator("iframe.status-frame")


def _round(page: Page, text: str, beats: int) -> None:
    page.fill("#composer", text)
    page.click("#send")
    beats_done(page, beats)


def test_a_members_status_bar_runs_and_follows_the_group_chat(group_served: Served, page: Page) -> None:
    group_served.fake.script([
        text_reply("林月端上一壶龙井。"),
        text_reply(reply("林晚笑了笑，给你斟了一杯茶。", "_.set('林晚.好感度', 10, 15);//高兴")),
        text_reply("林月去后厨了。"),
        text_reply(reply("林晚低头拨着算盘。", "_.set('林晚.好感度', 15, 22);//又高兴了些")),
    ])  # fmt: skip
    folder = urllib.parse.quote(GROUP)
    chat = _post(group_served, f"/api/groups/{folder}/chats")
    base = f"/api/groups/{folder}/chats/{urllib.parse.quote(str(chat['chat_id']))}"
    page.goto(f"{group_served.url}/group/{folder}/{urllib.parse.quote(str(chat['chat_id']))}")
    wait_ready(page)
    assert page.locator("iframe.status-frame").count() == 0  # no reply yet

    _round(page, "两位早。", 1)
    bars = _her_bars(page)
    assert bars.count() == 1 and bars.first.get_attribute("sandbox") == "allow-scripts"
    first = frame_of(bars.first)
    # Messages: the two greetings, the user's, 林月's reply, 林晚's (message 4) with the bar.
    wait_text(first, "#好感", "好感度：15")
    assert first.locator("#楼层").inner_text() == "楼层：4/4"
    assert first.locator("#正文").inner_text() == "本楼：林晚笑了笑，"
    with urllib.request.urlopen(f"{group_served.url}{base}/variables?message=-1") as answer:
        latest = json.loads(answer.read())
    assert latest["last"] == 4 and latest["messages"][0]["variables"]["stat_data"]["林晚"]["好感度"] == 15

    _round(page, "生意怎么样？", 2)
    bars = _her_bars(page)
    assert bars.count() == 2
    newest = frame_of(bars.nth(1))
    wait_text(newest, "#好感", "好感度：22")
    assert newest.locator("#楼层").inner_text() == "楼层：7/7"
    older = frame_of(bars.nth(0))  # drawn again with the page: its own message's values, the latest's too
    wait_text(older, "#最新", "最新好感：22")
    assert older.locator("#好感").inner_text() == "好感度：15"
