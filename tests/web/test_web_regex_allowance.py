"""The chat page asks once whether a card's own regex scripts may run, then offers a switch; the
answer reaches the model request of the next beat (the stage's prompt-time regex)."""

from __future__ import annotations

import json
import urllib.parse
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "听雨"
STRIP = {
    "scriptName": "去掉状态栏",
    "findRegex": "/<status>[\\s\\S]*?<\\/status>/g",
    "replaceString": "",
    "placement": [2],
    "promptOnly": True,
    "disabled": False,
}


def _card() -> dict[str, object]:
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": CARD,
            "description": "听雨是茶馆的琴师。",
            "first_mes": "琴声停了。<status>好感：10</status>",
            "extensions": {"regex_scripts": [STRIP]},
        },
    }


def _settings(served: Served) -> dict[str, object]:
    path = served.home.card_dir(CARD) / "卡.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_the_chat_page_asks_once_and_the_answer_reaches_the_request(served: Served, page: Page) -> None:
    folder = served.home.card_dir(CARD)
    folder.mkdir(parents=True)
    (folder / f"{CARD}.json").write_text(json.dumps(_card(), ensure_ascii=False), encoding="utf-8")

    served.fake.script([text_reply("琴声又起。"), text_reply("一曲终了。")])
    chat_id = open_new_chat(page, served.url, CARD)
    ask = page.locator("#regex-allow-ask")
    ask.wait_for()
    assert "去掉状态栏" in ask.inner_text() and "regex_allowed" not in _settings(served)
    screenshot(page, "regex-allowance-ask")
    # Not answered yet: the scripts do not run, the status bar reaches the model.
    page.fill("#composer", "再弹一曲。")
    page.click("#send")
    beats_done(page, 1)
    assert "<status>" in json.dumps(served.fake.chat_requests[-1].body["messages"], ensure_ascii=False)

    page.click("#regex-allow-yes")
    page.locator("#toast:not(.error)", has_text="已允许").wait_for()
    assert _settings(served)["regex_allowed"] is True
    assert ask.is_hidden() and page.locator("#regex-allow-toggle").is_checked()
    page.fill("#composer", "好听。")
    page.click("#send")
    beats_done(page, 2)
    sent = json.dumps(served.fake.chat_requests[-1].body["messages"], ensure_ascii=False)
    assert "<status>" not in sent and "琴声停了。" in sent

    # Asked once: a reload shows the switch, not the question; the switch turns them off again.
    page.goto(f"{served.url}/chat/{urllib.parse.quote(CARD)}/{chat_id}")
    page.locator("#regex-allow-switch").wait_for()
    assert ask.is_hidden()
    page.click("#regex-allow-toggle")
    page.locator("#toast:not(.error)", has_text="不会运行").wait_for()
    assert _settings(served)["regex_allowed"] is False
