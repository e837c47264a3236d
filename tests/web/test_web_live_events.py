"""A card's scripts hear a beat's events BEFORE its request is sent and change it, as in SillyTavern
(issue 45: ``app/play/live_events.py``, ``static/script_live.js``): real Chromium, the real page, the
fake model.  The card's script is written as real cards are — the host found through
``window.parent``, ``eventOn(tavern_events.CHAT_COMPLETION_PROMPT_READY, …)`` on it, an awaited
listener, ``TavernHelper.injectPrompts`` from a script button and ``injectPrompts`` with a ``filter``
reading the variables (kai's 「立即事件」 does the same) — and the fake server receives what the
listeners, the button and the filter put in."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from script_card import add_script_card, helper_script
from status_card import reply, tavern_config
from web_harness import LiveServer, Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "听事件的阿梨"

LISTENER = """
const host = () => (window.parent && window.parent !== window ? window.parent : window);
const heard = [];
host().eventOn(host().tavern_events.CHAT_COMPLETION_PROMPT_READY, async (data) => {
  if (data.dryRun) return;
  if (data.chat.some((m) => m.content.includes('卡住'))) await new Promise(() => {});  // never ends
  await new Promise((resolve) => setTimeout(resolve, 80));  // awaited, as SillyTavern awaits it
  data.chat.push({ role: 'system', content: '【监听器】阿梨今天心情很好，房租打九折。' });
  heard.push('prompt:' + data.chat.length);
});
host().eventOn(host().tavern_events.CHAT_COMPLETION_SETTINGS_READY, (data) => {
  data.max_tokens = 321;
  heard.push('settings:' + data.messages.length);
});
host().eventOn(host().tavern_events.MESSAGE_RECEIVED, () => {
  $('#听到的').text(heard.join(' '));
});
eventOnButton('立即事件', () => {
  host().TavernHelper.injectPrompts([{ id: '立即事件', position: 'in_chat', depth: 0, role: 'system',
    content: '【立即事件】楼下搬来了新租客。', should_scan: false }], { once: true });
  toastr.info('事件已注入', '立即事件');
});
injectPrompts([{ id: '资金过百', position: 'in_chat', depth: 2, role: 'assistant', content: '（阿梨数钱数得眉开眼笑）',
  filter: () => _.get(host().Mvu.getMvuData({ type: 'message', message_id: 'latest' }), 'stat_data.房东.资金') > 100,
}]);
$('body').append('<p id="听到的">（还没有）</p>');
"""


@pytest.fixture(scope="module")
def live_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("live-events-home"))
    seed_home(home)
    add_script_card(home, name=CARD, extra=[helper_script("听事件", LISTENER, ["立即事件"], "0e-listen")])
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def test_listeners_change_the_request_of_the_beat_they_hear(live_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    fake = live_served.fake
    fake.script([text_reply(reply("阿梨点点头，收下房租。", "_.set('房东.资金', 30, 158);//收租")),
                 text_reply("阿梨探头看了看楼下。"), text_reply("好。")])  # fmt: skip
    open_new_chat(page, live_served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='3']")

    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    first = fake.chat_requests[-1].body
    assert first["messages"][-1] == {"role": "system", "content": "【监听器】阿梨今天心情很好，房租打九折。"}
    assert first["messages"][-2] == {"role": "user", "content": "这个月的房租。"}
    assert first["max_tokens"] == 321
    assert "眉开眼笑" not in str(first)  # its filter said no: 资金 30

    page.locator("#script-buttons button", has_text="立即事件").click()
    page.wait_for_function("() => (document.getElementById('toast')?.textContent || '').includes('事件已注入')")
    page.fill("#composer", "有什么新鲜事？")
    page.click("#send")
    beats_done(page, 2)
    second = fake.chat_requests[-1].body["messages"]
    # depth 0: after the chat; the listener then added its line after everything the prompt held
    assert second[-3:] == [{"role": "user", "content": "有什么新鲜事？"},
                           {"role": "system", "content": "【立即事件】楼下搬来了新租客。"},
                           {"role": "system", "content": "【监听器】阿梨今天心情很好，房租打九折。"}]  # fmt: skip
    assert {"role": "assistant", "content": "（阿梨数钱数得眉开眼笑）"} in second  # 资金 158 now: its filter says yes

    page.fill("#composer", "还有吗？")
    page.click("#send")
    beats_done(page, 3)
    third = fake.chat_requests[-1].body["messages"]
    assert "【立即事件】" not in str(third)  # once: the next generation only
    assert third[-1]["content"].startswith("【监听器】")
    assert errors == []


def test_a_listener_that_never_ends_holds_the_beat_only_up_to_the_bound(live_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    fake = live_served.fake
    fake.script([text_reply("阿梨等了一会儿。")])
    open_new_chat(page, live_served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='3']")
    page.fill("#composer", "卡住吧。")
    started = time.monotonic()
    page.click("#send")
    beats_done(page, 1)
    waited = time.monotonic() - started
    body = fake.chat_requests[-1].body
    assert body["messages"][-1] == {"role": "user", "content": "卡住吧。"}  # sent unchanged
    assert body["max_tokens"] != 321  # the settings' listener was not reached either
    notes = page.locator("#script-panel").text_content() or ""
    assert "脚本「听事件」：太慢 — 处理 chat_completion_prompt_ready 超过" in notes
    assert 2.0 < waited < 8.0  # the page gave up near the server's 3 s (a loaded machine adds to it)
    warnings = page.evaluate("() => document.getElementById('warnings')?.textContent || ''")
    assert "页面没有回答" not in warnings  # the page answered in time: it gave up on the listener
    assert errors == []
