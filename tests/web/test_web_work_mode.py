"""Work mode in the web: the mode selectors (chat page and settings) offer 工作（work）, and a switch
the model makes itself (`conversation_mode`) shows on the chat page while the beat is still running."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, tool_call_reply, wait_ready

from peargarden.testing.fake_openai import Pause, chunk, sse, text_reply, usage_chunk
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.config import load_settings

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_the_models_switch_into_work_mode_shows_during_the_beat(served: Served, page: Page) -> None:
    served.fake.script(
        [
            tool_call_reply("c1", "conversation_mode", {"mode": "authoring"}),
            sse(
                chunk(role="assistant", content=""),
                chunk(content="好，我们来改这张卡。"),
                Pause(2.0),
                chunk(content="想先改开场白吗？"),
                chunk(finish_reason="stop"),
                usage_chunk(30, 12),
            ),
        ]
    )
    chat_id = open_new_chat(page, served.url)
    options = page.locator("#mode option")
    assert options.evaluate_all("os => os.map(o => o.value)") == ["stage", "tavern", "work"]
    assert "工作" in page.locator("#mode option[value='work']").inner_text()
    assert page.input_value("#mode") == "stage"
    page.fill("#composer", "我想改改这张卡的开场白。")
    page.click("#send")
    page.locator(".msg.live .live-text", has_text="我们来改这张卡").wait_for()
    # Still streaming (the model pauses before its second half), yet the selector already says work.
    assert "想先改开场白吗" not in page.inner_text(".msg.live .live-text")
    assert page.input_value("#mode") == "work"
    beats_done(page, 1)
    assert page.input_value("#mode") == "work"
    chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
    modes = [entry.body.get("data") for entry in chat.tree.customs("mode")]
    assert modes == [{"mode": "work"}]
    with urllib.request.urlopen(f"{served.url}/api/chats/{urllib.parse.quote('青梧')}", timeout=20) as response:
        listed = {chat["chat_id"]: chat["mode"] for chat in json.loads(response.read())}
    assert listed[chat_id] == "work"  # the chat list says the mode of the active branch, not the header's
    screenshot(page, "chat-work-mode")

    # The model switches back to role-play itself: the selector follows (the beat ends there).
    served.fake.script([tool_call_reply("c2", "conversation_mode", {"mode": "roleplay"})])
    page.fill("#composer", "先不改了，接着讲故事吧。")
    page.click("#send")
    beats_done(page, 2)
    assert page.input_value("#mode") == "stage"

    # The user switches by hand: the selector writes the change onto the branch.
    page.select_option("#mode", "tavern")
    page.wait_for_function("document.getElementById('chat').dataset.mode === 'tavern'")
    chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
    changes = [entry.body.get("data") for entry in chat.tree.customs("mode")]
    assert changes == [{"mode": "work"}, {"mode": "stage"}, {"mode": "tavern"}]


def test_settings_offer_work_as_the_default_mode(served: Served, page: Page) -> None:
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    try:
        page.goto(served.url + "/settings")
        wait_ready(page)
        assert "工作" in page.locator("#mode option[value='work']").inner_text()
        page.select_option("#mode", "work")
        page.click("#save-settings")
        page.locator("#toast:not(.error)", has_text="设置已保存").wait_for()
        assert load_settings(config).mode == "work"
        page.reload()
        wait_ready(page)
        assert page.input_value("#mode") == "work"
        # A new chat starts in work mode: the user's words are tagged and stay out of the story.
        served.fake.script([text_reply("卡在这里，想改哪里？")])
        open_new_chat(page, served.url)
        assert page.input_value("#mode") == "work"
        page.fill("#composer", "看看描述写了什么。")
        page.click("#send")
        beats_done(page, 1)
        sent = served.fake.chat_requests[-1].body
        assert "card_project" in [tool["function"]["name"] for tool in sent.get("tools", [])]
    finally:
        config.write_text(before, encoding="utf-8")
