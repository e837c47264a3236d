"""A card's status bar in the web (issue 29 point 5): a Chinese MVU card plays in tavern mode against the
fake model server; its display regex makes each reply's placeholder a front-end document, which runs in
an ``<iframe sandbox="allow-scripts">`` and reads the variables through the page's bridge.  After the
reply the frame shows the reply's variables; after the next beat and a swipe it shows the new ones (the
old bar through MVU's update event); reaching the page gets a frame nothing; jQuery and lodash are
there without the network, and what could not be loaded is named in one line."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from status_card import CARD, add_status_card, frame_of, reply, tavern_config, wait_text
from test_web_markdown_html import XSS
from web_harness import LiveServer, Served, beats_done, open_new_chat, post_json, screenshots

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

# A status bar made of the XSS corpus (each payload tries to set parent.pwned) and one line of script
# that tries both the host the frame sees as its parent and the real page.
HOSTILE_CARD = "恶作剧"
# (The corpus ends inside an unclosed <style>: the bar's own script comes first.)
HOSTILE_BAR = "<!doctype html><html><body><p id='ran'>状态栏</p>" + (
    "<script>document.getElementById('ran').textContent = '脚本跑了';"
    "parent.pwned = 99;"  # the frame's own host: nothing reaches the page
    "try { window['top'].pwned = 99; } catch (error) { document.body.dataset.refused = error.name; }</script>"
) + "".join(XSS) + "</body></html>"


@pytest.fixture(scope="module")
def status_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("status-home"))
    seed_home(home)
    add_status_card(home)
    add_status_card(home, HOSTILE_BAR, HOSTILE_CARD)
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def _text(frame: Frame, selector: str) -> str:
    return frame.locator(selector).inner_text()


def _send(page: Page, text: str, beats: int) -> None:
    page.fill("#composer", text)
    page.click("#send")
    beats_done(page, beats)


def _bar(page: Page, message_id: int) -> Locator:
    return page.locator(f"#messages li.msg[data-index='{message_id}'] iframe.status-frame")


def _chat_file(served: Served, chat_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{served.url}/api/chats/{urllib.parse.quote(CARD)}/{chat_id}/variables") as answer:
        return dict(json.loads(answer.read()))


def test_the_status_bar_shows_the_variables_and_follows_beats_and_swipes(status_served: Served, page: Page) -> None:
    status_served.fake.script([
        text_reply(reply("林晚笑了笑，给你斟了一杯茶。",
                         "_.set('林晚.好感度', 10, 15);//高兴\n_.set('林晚.心情', '平静', '愉快');")),
        text_reply(reply("林晚低头拨着算盘。", "_.set('林晚.好感度', 15, 22);//又高兴了些")),
        text_reply(reply("林晚皱了皱眉。", "_.set('林晚.好感度', 15, 18);//有点不快")),
    ])  # fmt: skip
    chat_id = open_new_chat(page, status_served.url, CARD)
    start_url = page.url
    assert page.locator("iframe.status-frame").count() == 0  # the greeting has no placeholder

    _send(page, "掌柜的，来壶龙井。", 1)
    first = _bar(page, 2)
    assert first.get_attribute("sandbox") == "allow-scripts"
    bar = frame_of(first)
    wait_text(bar, "#好感", "好感度：15")
    assert _text(bar, "#心情") == "心情：愉快"
    assert _text(bar, "#最新") == "最新好感：15"
    assert _text(bar, "#楼层") == "楼层：2/2"
    assert _text(bar, "#正文") == "本楼：林晚笑了笑，"
    # The story around the bar is a message (sanitised Markdown); the update block is hidden by the regex.
    reply_item = page.locator("#messages li.msg[data-index='2']")
    assert "林晚笑了笑" in reply_item.locator(".md").inner_text()
    assert "UpdateVariable" not in reply_item.inner_text()
    # jQuery and lodash ran (the values above were drawn with $ and _), and Vue (its npm package); Font
    # Awesome was not loaded, and the bar says so in one line.
    assert _text(bar, "#库") == "Vue 加载了"
    blocked = bar.locator(".pear-blocked")
    assert "状态栏未能加载" in blocked.inner_text()
    assert "vue" not in blocked.inner_text()
    assert "all.min.css（cdnjs.cloudflare.com）" in blocked.inner_text()
    assert "jquery" not in blocked.inner_text()
    # The frame is as tall as what it shows.
    page.wait_for_function("(f) => f.getBoundingClientRect().height > 20", arg=first.element_handle())

    # Reaching the page: no document, no cookie, no top navigation, no fetch, no write, and the three
    # messages it posted (a command, a hello with a guessed nonce, a string) are refused and unanswered.
    wait_text(bar, "#probe", "write:")
    probe = _text(bar, "#probe")
    for said in ("document:SecurityError", "host:own-document", "cookie:SecurityError", "top:SecurityError",
                 "host:SecurityError", "fetch:TypeError", "write:refused", "update:refused"):  # fmt: skip
        assert said in probe, probe
    # A bar's write sent to the server as the page sends a bar's calls: refused there too (the card's
    # scripts were never allowed), one line, nothing written.
    message_2 = {"type": "message", "message_id": 2}
    forged = post_json(status_served.url, f"/api/chats/{urllib.parse.quote(CARD)}/{chat_id}/scripts/call", {
        "calls": [{"bar": 2, "name": "replaceVariables", "args": [{"stat_data": {}}, message_2]},
                  {"bar": 2, "name": "triggerSlash", "args": ["/setvar key=好感度 99"]}]})  # fmt: skip
    assert forged["answers"] == [{"error": "状态栏只能读取：此卡的脚本没有允许运行"}] * 2
    page.wait_for_selector("body[data-status-refused='3']")
    assert page.url == start_url
    assert page.evaluate("typeof window.pwned") == "undefined"
    screenshots(page, "status-bar")

    # The next beat: a new bar for the new reply; the first bar keeps its own message's values and
    # follows the latest through MVU's update event.
    _send(page, "今天生意好吗？", 2)
    second = frame_of(_bar(page, 4))
    wait_text(second, "#好感", "好感度：22")
    assert _text(second, "#楼层") == "楼层：4/4"
    wait_text(bar, "#最新", "最新好感：22")
    assert _text(bar, "#好感") == "好感度：15"
    assert _text(bar, "#事件") == "收到第4楼"

    # A swipe: the reply's new version has its own variables (from the state before that reply).
    page.locator("#messages .swipe-next").click()
    beats_done(page, 3)
    swiped = frame_of(_bar(page, 4))
    wait_text(swiped, "#好感", "好感度：18")
    wait_text(bar, "#最新", "最新好感：18")
    # And back: the first version's values again.
    page.locator("#messages .swipe-prev").click()
    beats_done(page, 4)
    wait_text(frame_of(_bar(page, 4)), "#好感", "好感度：22")

    # Nothing the frames sent changed the chat: its messages and variables are the beats' own.
    variables = _chat_file(status_served, chat_id)
    assert variables["last"] == 4
    assert variables["messages"][2]["variables"]["stat_data"]["林晚"]["好感度"] == 15  # (the forged write's message)
    reply_record = variables["messages"][4]
    assert [record["stat_data"]["林晚"]["好感度"] for record in reply_record["swipes"]] == [22, 18]
    assert reply_record["swipe_id"] == 0
    assert _text(bar, "#收到") == ""  # no answer to anything it posted
    assert page.evaluate("typeof window.pwned") == "undefined"

    # In English the page draws the bars again and the line says it in English.
    page.click("#lang-switch")
    english = frame_of(_bar(page, 2)).locator(".pear-blocked")
    english.wait_for()
    assert english.inner_text().startswith("⚠ The status bar could not load: all.min.css")


def test_the_xss_corpus_runs_nothing_in_the_page(status_served: Served, page: Page) -> None:
    """The XSS corpus in the model's words and in the card's status bar: the words are drawn as before
    (a document with scripts: the script-less frame), the card's bar runs its script only inside its
    own frame, and the page runs none of it, hovered all over."""
    status_served.fake.script([text_reply(reply("\n\n".join(XSS), "_.set('林晚.好感度', 10, 12);"))])
    open_new_chat(page, status_served.url, HOSTILE_CARD)
    _send(page, "试试", 1)
    item = page.locator("#messages li.msg[data-index='2']")
    words = item.locator("iframe.card-html:not(.status-frame)")
    assert words.count() == 1 and words.get_attribute("sandbox") == "allow-same-origin"
    bar = _bar(page, 2)
    assert bar.get_attribute("sandbox") == "allow-scripts"
    frame = frame_of(bar)
    wait_text(frame, "#ran", "脚本跑了")  # the card's script ran, in its frame
    assert frame.evaluate("document.body.dataset.refused") == "SecurityError"
    for inner in (frame_of(words), frame):
        for target in inner.locator("body *").all()[:25]:
            if target.is_visible():
                target.hover(force=True)  # (an element under another one is hovered all the same)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert frame_of(words).evaluate("typeof window.pwned") == "undefined"
