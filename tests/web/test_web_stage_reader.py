"""The stage's reply the user reads, in the web (issue 43 item 3): the sealed draft is the live
reply's text as soon as its `prose` event arrives, and the `ask` tool's fork is a choice card whose
buttons send the option's text as the next message (free text allowed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, tool_call_reply

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
