"""Work mode in the web: the mode selectors (chat page and settings) offer 工作（work）, and a switch
the model makes itself (`conversation_mode`) shows on the chat page while the beat is still running."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request

from web_harness import Served, beats_done, open_new_chat, screenshot, tool_call_reply, wait_ready

from peargarden.testing.fake_openai import Pause, chunk, sse, text_reply, usage_chunk
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.config import load_settings


def test_the_models_switch_into_work_mode_shows_during_the_beat(served: Served, page: object) -> None:
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
    options = page.locator("#mode option")  # type: ignore[attr-defined]
    assert options.evaluate_all("os => os.map(o => o.value)") == ["stage", "tavern", "work"]
    assert "工作" in page.locator("#mode option[value='work']").inner_text()  # type: ignore[attr-defined]
    assert page.input_value("#mode") == "stage"  # type: ignore[attr-defined]
    page.fill("#composer", "我想改改这张卡的开场白。")  # type: ignore[attr-defined]
    page.click("#send")  # type: ignore[attr-defined]
    page.locator(".msg.live .live-text", has_text="我们来改这张卡").wait_for()  # type: ignore[attr-defined]
    # Still streaming (the model pauses before its second half), yet the selector already says work.
    assert "想先改开场白吗" not in page.inner_text(".msg.live .live-text")  # type: ignore[attr-defined]
    assert page.input_value("#mode") == "work"  # type: ignore[attr-defined]
    beats_done(page, 1)
    assert page.input_value("#mode") == "work"  # type: ignore[attr-defined]
    chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
    modes = [entry.body.get("data") for entry in chat.tree.customs("mode")]
    assert modes == [{"mode": "work"}]
    with urllib.request.urlopen(f"{served.url}/api/chats/{urllib.parse.quote('青梧')}", timeout=20) as response:
        listed = {chat["chat_id"]: chat["mode"] for chat in json.loads(response.read())}
    assert listed[chat_id] == "work"  # the chat list says the mode of the active branch, not the header's
    screenshot(page, "chat-work-mode")

    # The model switches back to role-play itself: the selector follows (the beat ends there).
    served.fake.script([tool_call_reply("c2", "conversation_mode", {"mode": "roleplay"})])
    page.fill("#composer", "先不改了，接着讲故事吧。")  # type: ignore[attr-defined]
    page.click("#send")  # type: ignore[attr-defined]
    beats_done(page, 2)
    assert page.input_value("#mode") == "stage"  # type: ignore[attr-defined]

    # The user switches by hand: the selector writes the change onto the branch.
    page.select_option("#mode", "tavern")  # type: ignore[attr-defined]
    page.wait_for_function("document.getElementById('chat').dataset.mode === 'tavern'")  # type: ignore[attr-defined]
    chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
    changes = [entry.body.get("data") for entry in chat.tree.customs("mode")]
    assert changes == [{"mode": "work"}, {"mode": "stage"}, {"mode": "tavern"}]


def test_settings_offer_work_as_the_default_mode(served: Served, page: object) -> None:
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    try:
        page.goto(served.url + "/settings")  # type: ignore[attr-defined]
        wait_ready(page)
        assert "工作" in page.locator("#mode option[value='work']").inner_text()  # type: ignore[attr-defined]
        page.select_option("#mode", "work")  # type: ignore[attr-defined]
        page.click("#save-settings")  # type: ignore[attr-defined]
        page.locator("#toast:not(.error)", has_text="设置已保存").wait_for()  # type: ignore[attr-defined]
        assert load_settings(config).mode == "work"
        page.reload()  # type: ignore[attr-defined]
        wait_ready(page)
        assert page.input_value("#mode") == "work"  # type: ignore[attr-defined]
        # A new chat starts in work mode: the user's words are tagged and stay out of the story.
        served.fake.script([text_reply("卡在这里，想改哪里？")])
        open_new_chat(page, served.url)
        assert page.input_value("#mode") == "work"  # type: ignore[attr-defined]
        page.fill("#composer", "看看描述写了什么。")  # type: ignore[attr-defined]
        page.click("#send")  # type: ignore[attr-defined]
        beats_done(page, 1)
        sent = served.fake.chat_requests[-1].body
        assert "card_project" in [tool["function"]["name"] for tool in sent.get("tools", [])]
    finally:
        config.write_text(before, encoding="utf-8")
