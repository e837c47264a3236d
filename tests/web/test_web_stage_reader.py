"""The stage's reply the user reads, in the web (issue 43 item 3): the sealed draft is the live
reply's text as soon as its `prose` event arrives, and the `ask` tool's fork is a choice card whose
buttons send the option's text as the next message (free text allowed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, tool_call_reply, wait_ready

from peargarden.sessions.context import context_message
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.chats import ChatFile

if TYPE_CHECKING:
    from playwright.sync_api import Page

# Every text the live reply showed while the beat ran (the live item is replaced by the kept
# message once the reply is complete, so the test watches it as it changes).
WATCH_LIVE = """() => {
  window.liveTexts = [];
  new MutationObserver(() => {
    for (const text of document.querySelectorAll('.msg.live .live-text')) window.liveTexts.push(text.textContent);
  }).observe(document.getElementById('messages'), { subtree: true, childList: true, characterData: true });
}"""


def _user_messages(served: Served, chat_id: str) -> list[str]:
    chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
    said = [context_message(entry) for entry in chat.tree.messages()]
    return [message.content for message in said if message.role == "user"]


def test_sealed_prose_is_the_live_reply_and_a_fork_is_a_choice_card(served: Served, page: Page) -> None:
    prose = "青梧把算盘往旁边一推：“镇北渡口？那年的船，早就不走了。”"
    served.fake.script(
        [
            tool_call_reply("c1", "draft_write", {"content": prose}),
            tool_call_reply("c2", "draft_seal", {}),
        ]
    )
    chat_id = open_new_chat(page, served.url)
    assert page.input_value("#mode") == "stage"
    page.evaluate(WATCH_LIVE)
    page.fill("#composer", "掌柜，镇北渡口还有船吗？")
    page.click("#send")
    beats_done(page, 1)
    # The live reply showed the sealed prose (the model streamed no text of its own in this beat).
    assert prose in page.evaluate("window.liveTexts")
    assert page.locator("#choice-card").is_hidden()

    # A fork: the card shows the question and one button per option; a click sends that option.
    ask: dict[str, object] = {"question": "要不要跟青梧去渡口看看？", "options": ["跟她去", "留在店里", "先问问周伯"]}
    served.fake.script([tool_call_reply("c3", "ask", ask)])
    page.fill("#composer", "我想去看看。")
    page.click("#send")
    beats_done(page, 2)
    card = page.locator("#choice-card")
    card.wait_for()
    assert card.locator(".choice-question").inner_text() == "要不要跟青梧去渡口看看？"
    assert card.locator("button.choice-option").all_inner_texts() == ["跟她去", "留在店里", "先问问周伯"]
    assert "自己的选择" in card.inner_text()  # free text allowed: the composer stays the reader's
    screenshot(page, "chat-stage-choice", viewport_only=True)

    served.fake.script([text_reply("青梧提起灯笼：“走吧。”")])
    card.locator("button.choice-option", has_text="留在店里").click()
    beats_done(page, 3)
    assert card.is_hidden()
    assert _user_messages(served, chat_id)[-1] == "留在店里"


def test_a_saved_stage_beat_reads_as_its_prose_and_an_open_fork_survives_a_reload(served: Served, page: Page) -> None:
    prose = "雨点打在油纸伞上。青梧收了伞：“客官，里边坐，茶刚沏好。”"
    served.fake.script(
        [
            tool_call_reply("c1", "draft_write", {"content": "雨点打在油纸伞上。"}),
            tool_call_reply("c2", "draft_append", {"content": "青梧收了伞：“客官，里边坐，茶刚沏好。”"}),
            tool_call_reply("c3", "draft_seal", {}),
        ]
    )
    open_new_chat(page, served.url)
    page.fill("#composer", "雨下得好大。")
    page.click("#send")
    beats_done(page, 1)
    ask: dict[str, object] = {"question": "坐哪儿？", "options": ["靠窗", "靠炉子"]}
    served.fake.script([tool_call_reply("c4", "ask", ask)])
    page.fill("#composer", "我进去了。")
    page.click("#send")
    beats_done(page, 2)

    page.reload()
    wait_ready(page)
    # The kept reply reads as the prose the reader saw, not as the calls' arguments: the beat's
    # first two rounds are folded steps without a text, the sealing round carries the prose.
    steps = page.locator("li.msg.assistant.beat-step")
    assert steps.count() == 2 and steps.locator(".msg-text").count() == 0
    assert "draft_append" in (steps.nth(1).locator(".timeline-fold").text_content() or "")
    assert not steps.nth(1).locator(".tool-head").first.is_visible()  # folded away
    reply = page.locator("li.msg.assistant:not(.beat-step)", has=page.locator(".timeline-fold")).first
    assert reply.locator(".msg-text").inner_text().replace("\n", "") == prose
    assert not reply.locator(".tool-head").first.is_visible()
    assert page.locator("li.msg.assistant .msg-fork").inner_text() == "坐哪儿？（靠窗／靠炉子）"
    # The fork the story stopped at is open again, its options the buttons.
    card = page.locator("#choice-card")
    card.wait_for()
    assert card.locator("button.choice-option").all_inner_texts() == ["靠窗", "靠炉子"]
    served.fake.script([text_reply("青梧引你到窗边坐下。")])
    card.locator("button.choice-option", has_text="靠窗").click()
    beats_done(page, 1)  # the page's own count, since the reload
    page.reload()
    wait_ready(page)
    assert card.is_hidden()  # answered: a reload does not ask again
