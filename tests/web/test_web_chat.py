"""The chat page in a real browser against the fake model: streaming, thinking, swipes, edit,
branches, the mode switch and the warnings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot

from peargarden.testing.fake_openai import Pause, chunk, sse, text_reply, usage_chunk

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_two_beats_stream_with_thinking_folded(served: Served, page: Page) -> None:
    served.fake.script(
        [
            sse(
                chunk(role="assistant", content=""),
                chunk(reasoning_content="她该怎么回答这位客人？"),
                chunk(content="青梧放下算盘，"),
                Pause(1.5),
                chunk(content="抬眼看了看门外的雨。"),
                chunk(finish_reason="stop"),
                usage_chunk(30, 12),
            ),
            text_reply("“那把伞，", "是一位故人留下的。”"),
        ]
    )
    errors: list[str] = []
    asked: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: asked.append(r.url))
    open_new_chat(page, served.url)
    # A chat with no beat yet has no request to mark: the page does not ask the inspector for one
    # (which would answer 404 and put an error in the console).
    assert errors == [] and not [url for url in asked if "/api/inspect/" in url]
    page.fill("#composer", "掌柜的，还有空房吗？")
    page.click("#send")
    live = page.locator(".msg.live .live-text")
    live.filter(has_text="青梧放下算盘").wait_for()
    # The first half is on the page while the model is still pausing: the reply streams.
    assert "抬眼" not in live.inner_text()
    beats_done(page, 1)
    reply = page.locator(".msg.assistant").last
    assert "抬眼看了看门外的雨" in reply.inner_text()
    fold = reply.locator("details.thinking")
    assert fold.count() == 1 and fold.get_attribute("open") is None  # thinking is folded
    page.fill("#composer", "那把伞是谁的？")
    page.click("#send")
    beats_done(page, 2)
    texts = page.locator(".msg").all_inner_texts()
    assert any("是一位故人留下的" in t for t in texts)
    assert page.locator(".msg.user").count() == 2
    # The second request carried the first beat: the model saw the story so far.
    sent = served.fake.chat_requests[-1].body["messages"]
    assert any("掌柜的，还有空房吗？" in str(m.get("content")) for m in sent)
    # The in-context marker: what the last request carried is marked on the chat.
    assert page.locator(".msg.in-context").count() >= 3
    screenshot(page, "chat")


def test_regenerate_swipe_edit_and_branch_tree(served: Served, page: Page) -> None:
    served.fake.script([text_reply("第一版回答。"), text_reply("第二版回答。"), text_reply("改过之后的回答。")])
    open_new_chat(page, served.url)
    page.fill("#composer", "雨什么时候停？")
    page.click("#send")
    beats_done(page, 1)
    page.click("#regenerate")
    beats_done(page, 2)
    assert page.inner_text(".swipe-count") == "2/2"
    assert "第二版回答" in page.locator(".msg.assistant").last.inner_text()
    page.click(".swipe-prev")
    beats_done(page, 3)
    assert page.inner_text(".swipe-count") == "1/2"
    assert "第一版回答" in page.locator(".msg.assistant").last.inner_text()

    # Edit the user's words: in place, as SillyTavern edits (no new version beside them).
    user = page.locator(".msg.user").last
    user_id = user.get_attribute("data-id")
    user.locator("button.edit").click()
    page.fill(".edit-box", "雨明天会停吗？")
    page.click(".save-edit")
    page.locator(".msg.user", has_text="雨明天会停吗？").wait_for()
    assert page.locator(".msg.user").last.get_attribute("data-id") == user_id
    assert page.inner_text(".swipe-count") == "1/2"  # the replies are as they were
    page.click("#regenerate")
    beats_done(page, 4)
    assert "改过之后的回答" in page.locator(".msg.assistant").last.inner_text()
    assert page.inner_text(".swipe-count") == "3/3"
    nodes = page.locator("#tree .node")
    labels = nodes.all_text_contents()
    assert any("雨明天会停吗" in t for t in labels) and not any("雨什么时候停" in t for t in labels)
    # Another reply through the tree picture.
    page.locator("#tree .node", has_text="第二版回答").click()
    page.locator(".msg.assistant", has_text="第二版回答").wait_for()
    # Branch from the greeting: the story after it is gone from the active path.
    page.locator(".msg.assistant").first.locator("button.branch").click()
    page.wait_for_function("document.querySelectorAll('.msg.user').length === 0")
    screenshot(page, "chat-branches")


def test_mode_switch_and_the_bundled_system_warning(served: Served, page: Page) -> None:
    system = served.home.system_file
    saved = system.read_bytes()
    system.unlink()  # without SYSTEM.md the bundled one is used, with a warning on every beat
    try:
        served.fake.script([text_reply("好。"), text_reply("酒馆里也好。")])
        open_new_chat(page, served.url)
        page.fill("#composer", "你好")
        page.click("#send")
        beats_done(page, 1)
        warnings = page.locator("#warnings")
        assert warnings.is_visible() and "SYSTEM.md" in warnings.inner_text()
        page.select_option("#mode", "tavern")
        page.wait_for_selector("#chat[data-mode='tavern']")  # the switch answered (a send may not overtake it)
        page.fill("#composer", "再来一句")
        page.click("#send")
        beats_done(page, 2)
        assert page.input_value("#mode") == "tavern"
        tavern_system = served.fake.chat_requests[-1].body["messages"][0]["content"]
        stage_system = served.fake.chat_requests[-2].body["messages"][0]["content"]
        assert tavern_system != stage_system
        page.set_viewport_size({"width": 390, "height": 844})
        screenshot(page, "chat-phone")
    finally:
        system.write_bytes(saved)


def test_switch_between_chats_and_export(served: Served, page: Page) -> None:
    served.fake.script([text_reply("第一局。")])
    first = open_new_chat(page, served.url)
    page.fill("#composer", "开始")
    page.click("#send")
    beats_done(page, 1)
    second = open_new_chat(page, served.url)
    assert page.input_value("#chat-list") == second
    page.select_option("#chat-list", first)
    page.wait_for_url(f"**/{first}")
    page.wait_for_selector("body[data-ready='1']")
    assert "第一局" in page.locator(".msg.assistant").last.inner_text()
    with page.expect_download() as download_info:
        page.click("#export")
    lines = Path(download_info.value.path()).read_text(encoding="utf-8").splitlines()
    assert any("第一局。" in line for line in lines[1:])


def test_sillytavern_hotkeys_swipe_edit_regenerate_and_continue(served: Served, page: Page) -> None:
    """Left / Right swipe, Up edits the last message, Escape leaves the edit, Ctrl+Enter regenerates
    and Alt+Enter continues — with nothing typed in the chat bar; typed text keeps the keys its own."""
    served.fake.script([text_reply("第一版。"), text_reply("第二版。"), text_reply("第三版。"), text_reply("接着写。")])
    open_new_chat(page, served.url)
    page.fill("#composer", "雨什么时候停？")
    page.press("#composer", "Enter")
    beats_done(page, 1)
    last = page.locator(".msg.assistant").last
    page.press("#composer", "ArrowRight")
    beats_done(page, 2)  # past the last swipe: a new reply
    assert page.inner_text(".swipe-count") == "2/2" and "第二版" in last.inner_text()
    page.press("#composer", "ArrowLeft")
    beats_done(page, 3)
    assert page.inner_text(".swipe-count") == "1/2" and "第一版" in last.inner_text()
    page.fill("#composer", "打")
    page.press("#composer", "ArrowLeft")  # typed text: the arrow moves the caret, nothing else
    page.fill("#composer", "")
    page.press("#composer", "ArrowUp")
    box = page.locator(".edit-box")
    assert box.input_value() == "第一版。"
    page.press(".edit-box", "Escape")
    assert box.count() == 0 and "第一版" in last.inner_text()
    page.press("#composer", "Control+ArrowUp")
    assert box.input_value() == "雨什么时候停？"
    page.press(".edit-box", "Escape")
    page.press("#composer", "Control+Enter")
    beats_done(page, 4)
    assert page.inner_text(".swipe-count") == "3/3" and "第三版" in last.inner_text()
    page.press("#composer", "Alt+Enter")
    beats_done(page, 5)
    assert "接着写" in last.inner_text()
    assert page.locator(".msg.user").count() == 1  # no key sent an empty message
    assert int(page.evaluate("document.body.dataset.beats")) == 5
    page.click(".hotkeys-help summary")  # and the page says so
    assert "Ctrl+Enter 重新生成" in page.locator(".hotkeys-help ul").inner_text()


def test_hide_a_message_from_the_model_and_show_it_again(served: Served, page: Page) -> None:
    served.fake.script([text_reply("好，客官慢走。"), text_reply("青梧点了点头。"), text_reply("青梧斟茶。")])
    open_new_chat(page, served.url)
    page.fill("#composer", "（场外：我去倒杯水）")
    page.click("#send")
    beats_done(page, 1)
    aside = page.locator(".msg.user").last
    aside.locator("button.hide").click()
    page.locator(".msg.user.hidden-msg").wait_for()
    assert "不发给模型" in page.locator(".msg.user").last.inner_text()
    page.fill("#composer", "掌柜，我回来了。")
    page.click("#send")
    beats_done(page, 2)
    sent = str(served.fake.chat_requests[-1].body["messages"])
    assert "我去倒杯水" not in sent and "掌柜，我回来了" in sent
    page.locator(".msg.user.hidden-msg button.unhide").click()
    page.wait_for_function("document.querySelectorAll('.msg.hidden-msg').length === 0")
    page.click("#regenerate")
    beats_done(page, 3)
    assert "我去倒杯水" in str(served.fake.chat_requests[-1].body["messages"])
    # In English the branch picture and the buttons say it in English too.
    page.click("#lang-switch")
    tree = page.locator("#tree").inner_text()
    assert "You: （场外：我去倒杯水）" in tree and "你：" not in tree
    assert page.locator(".msg.user button.hide").last.inner_text() == "Hide"
    page.click("#lang-switch")
