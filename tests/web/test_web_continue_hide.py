"""Continue, edit and hide as SillyTavern has them, on the chat page: continue writes onto the reply
shown and an edit changes it (no new swipe), both undone by undo; a hide flags the message (no copies
in the branch tree)."""

from __future__ import annotations

from typing import Any

from web_harness import Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import text_reply


def test_continue_grows_the_reply_in_place_and_undo_takes_it_back(served: Served, page: Any) -> None:
    served.fake.script([text_reply("雨小了。"), text_reply("街上没人。")])
    open_new_chat(page, served.url)
    page.fill("#composer", "雨停了吗？")
    page.click("#send")
    beats_done(page, 1)
    reply = page.locator("#messages li.msg.assistant[data-index='2']")
    reply_id = reply.get_attribute("data-id")
    page.click("#continue")
    beats_done(page, 2)
    reply = page.locator("#messages li.msg.assistant[data-index='2']")
    assert reply.get_attribute("data-id") == reply_id and "雨小了。街上没人。" in reply.inner_text()
    assert page.locator("#messages li.msg[data-index]").count() == 3  # nothing new: the reply grew
    assert reply.locator(".swipe-count").count() == 0  # still one version, no second swipe
    reply.locator("button.undo").click()
    page.wait_for_function(
        "!document.querySelector(\"#messages li.msg[data-index='2']\").innerText.includes('街上没人')"
    )
    assert page.locator("#messages li.msg[data-index='2'] button.undo").count() == 0
    assert "雨小了。" in page.locator("#messages li.msg[data-index='2']").inner_text()


def test_an_edit_changes_the_swipe_shown_in_place_and_undo_takes_it_back(served: Served, page: Any) -> None:
    served.fake.script([text_reply("雨小了。"), text_reply("雨还大着呢。")])
    open_new_chat(page, served.url)
    page.fill("#composer", "雨停了吗？")
    page.click("#send")
    beats_done(page, 1)
    page.click("#regenerate")
    beats_done(page, 2)
    reply = page.locator("#messages li.msg.assistant[data-index='2']")
    reply_id = reply.get_attribute("data-id")
    assert reply.locator(".swipe-count").inner_text() == "2/2"
    reply.locator("button.edit").click()
    page.fill(".edit-box", "雨还大着呢，客官再坐坐。")
    page.click(".save-edit")
    reply = page.locator("#messages li.msg.assistant[data-index='2']", has_text="客官再坐坐")
    reply.wait_for()
    assert reply.get_attribute("data-id") == reply_id  # the same swipe, changed
    assert reply.locator(".swipe-count").inner_text() == "2/2"  # not a third version
    # The swipe itself holds the new text: away and back again.
    reply.locator("button.swipe-prev").click()
    page.locator("#messages li.msg.assistant[data-index='2']", has_text="雨小了。").wait_for()
    page.locator("#messages li.msg.assistant[data-index='2'] button.swipe-next").click()
    reply = page.locator("#messages li.msg.assistant[data-index='2']", has_text="客官再坐坐")
    reply.wait_for()
    # Undo: the text before the edit, and nothing more to undo.
    reply.locator("button.undo").click()
    page.wait_for_function(
        "!document.querySelector(\"#messages li.msg[data-index='2']\").innerText.includes('客官再坐坐')"
    )
    reply = page.locator("#messages li.msg.assistant[data-index='2']")
    assert "雨还大着呢。" in reply.inner_text() and reply.locator("button.undo").count() == 0
    assert page.locator("#tree .node").count() == 4  # greeting, question, two replies: no edit copies


def test_hiding_flags_the_message_and_the_tree_shows_no_copies(served: Served, page: Any) -> None:
    served.fake.script([text_reply("好，客官慢走。"), text_reply("青梧点了点头。")])
    open_new_chat(page, served.url)
    for number, line in enumerate(("（场外：我去倒杯水）", "掌柜，我回来了。"), 1):
        page.fill("#composer", line)
        page.click("#send")
        beats_done(page, number)
    page.wait_for_selector("#tree .node")
    nodes = page.locator("#tree .node").count()
    page.locator("#messages li.msg.user[data-index='1'] button.hide").click()
    page.locator("#messages li.msg.user.hidden-msg[data-index='1']").wait_for()
    page.wait_for_timeout(300)  # the tree is read again after the change
    assert page.locator("#tree .node").count() == nodes  # no copy of what followed
    assert page.locator("#messages li.msg[data-index]").count() == 5
    page.locator("#messages li.msg.user.hidden-msg button.unhide").click()
    page.wait_for_function("document.querySelectorAll('#messages li.hidden-msg').length === 0")
    assert page.locator("#tree .node").count() == nodes


def test_several_messages_are_picked_and_deleted_at_once(served: Served, page: Any) -> None:
    served.fake.script([text_reply("第一答。"), text_reply("第二答。"), text_reply("第三答。")])
    open_new_chat(page, served.url)
    for number, line in enumerate(("第一问", "第二问", "第三问"), 1):
        page.fill("#composer", line)
        page.click("#send")
        beats_done(page, number)
    page.click("#pick-messages")
    for index in (3, 4):  # the second question and its answer
        page.check(f"#messages li.msg[data-index='{index}'] .pick")
    assert page.inner_text("#picked-count") == "已选 2 条"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#delete-picked")
    page.wait_for_function("document.querySelectorAll('#messages li.msg[data-index]').length === 5")
    texts = page.locator("#messages li.msg[data-index]").all_inner_texts()
    assert not any("第二" in text for text in texts) and any("第三答" in text for text in texts)
    assert page.is_hidden("#picking")
