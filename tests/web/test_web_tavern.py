"""Tavern controls: switches and order of the prompt, lengths, this chat's Author's Note — each
change shows in the next tavern request; the history-space warning appears when prompts crowd out
the chat."""

from __future__ import annotations

import json
import urllib.parse
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, new_chat, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_controls_change_the_next_tavern_request(served: Served, page: Page) -> None:
    card_json = served.home.card_dir("青梧") / "卡.json"
    saved = card_json.read_bytes()
    try:
        chat_id = new_chat(served.url)  # the chat page itself is not needed here
        page.goto(f"{served.url}/tavern/{urllib.parse.quote('青梧')}/{chat_id}")
        wait_ready(page)
        scenario = page.locator("#order li[data-id='scenario']")
        assert scenario.locator("input.switch").is_checked()
        scenario.locator("input.switch").click()
        page.locator("#toast:not(.error)").wait_for()
        # Move the character description to the top, one step at a time.
        for _ in range(12):
            first = page.locator("#order li").first.get_attribute("data-id")
            if first == "charDescription":
                break
            where = "[...document.querySelectorAll('#order li')].findIndex(li => li.dataset.id === 'charDescription')"
            index = page.evaluate(where)
            page.locator("#order li[data-id='charDescription'] button.up").click()
            page.wait_for_function(f"n => {where} < n", arg=index)
        assert page.locator("#order li").first.get_attribute("data-id") == "charDescription"
        page.fill("#note-prompt", "（作者注：雨一直没有停。）")
        page.fill("#note-depth", "1")
        page.click("#note-save")
        page.locator("#toast:not(.error)", has_text="元数据").wait_for()
        stored = json.loads(card_json.read_text(encoding="utf-8"))["tavern"]
        assert stored["chats"][chat_id]["note_prompt"] == "（作者注：雨一直没有停。）"
        screenshot(page, "tavern")

        # The history-space warning: a tiny context leaves no room for the chat.
        page.fill("#context", "700")
        page.locator("#context").dispatch_event("change")
        page.locator("#tavern-warnings li", has_text="聊天历史").wait_for()
        page.fill("#context", "16000")
        page.locator("#context").dispatch_event("change")
        page.wait_for_function(
            "!document.getElementById('tavern-warnings').textContent.includes('聊天历史')"
        )

        page.goto(f"{served.url}/chat/{urllib.parse.quote('青梧')}/{chat_id}")
        wait_ready(page)
        page.select_option("#mode", "tavern")
        page.wait_for_function("document.querySelector('#mode').value === 'tavern'")
        served.fake.script([text_reply("雨还在下。")])
        page.fill("#composer", "雨停了吗？")
        page.click("#send")
        beats_done(page, 1)
        sent = served.fake.chat_requests[-1].body
        text = "\n".join(str(m.get("content")) for m in sent["messages"])
        assert "雨一直没有停" in text
        assert "暮春，栖水镇的雨已经下了三天" not in text  # the scenario prompt is switched off
        assert sent["messages"][0]["content"].startswith("青梧，二十六岁")  # description first
    finally:
        card_json.write_bytes(saved)
