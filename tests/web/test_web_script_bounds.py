"""Card scripts bounded and contained (issue 45 item 3, issue 46 item 11), in real Chromium.

A script that loops (``while (true)`` in a button's handler) freezes the one process the page's card
frames share — never the page: the chat is played meanwhile, the frozen frames are taken out, the
looping script is named in one line and stays stopped, the others start again and follow the chat.
Another script tries every way out of its frame (the app's API with and without a token, the top
page, a popup, cookies, the page's document, a module and a script from a host nobody allowed, forged
messages to the page, a flood of calls): the attempts are counted and none escapes.  (How fast the
composer answers while a script loops is measured by ``bench/bench_script_frames.py``, not here.)  A script
busy for seconds with nothing of it pending (a timer's work on a busy machine) is not taken for a loop."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from script_card import add_script_card, helper_script
from status_card import frame_of, reply, tavern_config, wait_text
from web_harness import LiveServer, Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "卡死的阿梨"
BUSY_CARD = "忙碌的阿梨"
# Four seconds of work at once, from a timer (no start, click or event of it pending), after the frame's
# start-up grace: what a busy machine looks like to the page, not a loop.
BUSY = """
$('body').append('<p id="开始">开始</p>');
setTimeout(() => {
  const end = Date.now() + 4000;
  while (Date.now() < end) {}
  $('body').append('<p id="忙完">忙完了</p>');
}, 1500);
"""
ATTEMPTS = ["fetch", "token", "top", "host-top", "popup", "cookie", "document", "import", "script-src", "nested",
            "nested-raw", "nested-parsed", "nested-navigate", "forge", "flood"]  # fmt: skip


@pytest.fixture(scope="module")
def bounds_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("bounds-home"))
    seed_home(home)
    add_script_card(home, looping=True, name=CARD)
    add_script_card(home, name=BUSY_CARD, extra=[helper_script("忙一阵的脚本", BUSY, [], "0e-busy")])
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def _notes(page: Page) -> str:
    return page.locator("#script-panel").text_content() or ""


def test_no_script_gets_out_and_a_looping_one_is_stopped(bounds_served: Served, page: Page) -> None:
    bounds_served.fake.script([text_reply(reply("阿梨收下房租。", "_.set('房东.资金', 30, 58);"))])
    open_new_chat(page, bounds_served.url, CARD)
    start_url = page.url
    page.wait_for_selector("body[data-scripts-ready='4']")

    # Every way out, tried and counted: none escapes.
    attack = frame_of(page.locator("#script-frames iframe[title='脚本：想逃出去的脚本']"))
    # Its module from a host nobody allowed: the one question for the host, answered no.
    page.locator(".remote-ask[data-host='evil.example'] .remote-no").click()
    attack.wait_for_selector("#攻击", timeout=60_000)
    results = dict(line.split(":", 1) for line in attack.locator("#攻击").inner_text().splitlines())
    assert sorted(results) == sorted(ATTEMPTS)
    escapes = [what for what, result in results.items() if result == "escaped"]
    assert escapes == [], results
    assert results["flood"] == "bounded" and results["import"] == "refused" and results["script-src"] == "blocked"
    assert results["nested"] == "contained" and results["nested-raw"] == "removed"
    notes = _notes(page)
    assert "调用太多" in notes  # the flood, in one line
    assert "evil.example/steal.js" in notes  # the module from a host nobody allowed
    assert "伪造" in notes or "页面不接受" in notes  # the forged messages, counted
    assert page.url == start_url  # no navigation

    # A loop: the page goes on (the chat is played), the frames' process is ended, the script named.
    page.locator("#script-buttons button", has_text="卡死").click()
    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    page.wait_for_function("(document.getElementById('script-panel')?.textContent || '').includes('会卡死的脚本')")
    assert "已停止" in _notes(page) and "按钮「卡死」" in _notes(page)
    # It stays stopped; the others started again and follow the chat.
    page.wait_for_function("document.querySelectorAll('#script-frames iframe').length === 3")
    assert page.locator("#script-frames iframe[title='脚本：会卡死的脚本']").count() == 0
    assert page.locator("#script-buttons button", has_text="卡死").count() == 0
    panel = frame_of(page.locator("#script-frames iframe[title='脚本：账本面板']"))
    wait_text(panel, "#阿梨面板 .资金", "资金：58")


def test_a_script_busy_for_seconds_with_nothing_pending_is_not_taken_for_a_loop(
    bounds_served: Served, page: Page
) -> None:
    open_new_chat(page, bounds_served.url, BUSY_CARD)
    page.wait_for_selector("body[data-scripts-ready='3']")
    busy = frame_of(page.locator("#script-frames iframe[title='脚本：忙一阵的脚本']"))
    busy.wait_for_selector("#忙完", timeout=30_000)
    page.wait_for_timeout(1000)  # a verdict would come within a ping of the silence
    said = page.evaluate("document.getElementById('script-panel')?.textContent || ''")
    assert "没有响应" not in said, said
    assert busy.locator("#开始").count() == 1  # the same frame, not started again
    assert page.locator("#script-frames iframe").count() == 3
