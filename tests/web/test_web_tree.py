"""The branch tree beside a chat draws the story's messages only: the variables, scene notes and other
bookkeeping a reply leaves behind (three entries per MVU reply) are no nodes (issue 47, item 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, wait_ready

from peargarden.app.play.service import PearApp
from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_internal_entries_are_no_nodes_of_the_branch_tree(served: Served, page: Page) -> None:
    served.fake.script([text_reply("客官里边请。"), text_reply("楼上还有一间。")])
    chat = open_new_chat(page, served.url)
    for beat, line in enumerate(("掌柜，住店。", "还有空房吗？"), 1):
        page.fill("#composer", line)
        page.click("#send")
        beats_done(page, beat)
    # What an MVU reply leaves after it: its variables, twice, and a note between (as another program
    # would append them to the session file).
    session = PearApp(served.home).open_chat("青梧", chat)
    for kind in ("message-variables", "story-notes", "message-variables"):
        session.chat.append_custom(kind, {"stat_data": {"好感度": 10}})
    page.reload()
    wait_ready(page)
    page.locator("#tree .node").first.wait_for()
    labels = page.locator("#tree .node").all_text_contents()
    assert len(labels) == 5, labels  # the greeting, two questions, two replies
    assert not any("variables" in label or "notes" in label for label in labels)
    assert page.locator("#tree .node.leaf", has_text="楼上还有一间").count() == 1  # where the chat is
    # The tree's lines join each node to the node it hangs from: one line per node but the first.
    assert page.locator("#tree path.edge").count() == 4
    # Going to the first reply from the tree still works.
    page.locator("#tree .node", has_text="客官里边请").click()
    page.wait_for_function("document.querySelectorAll('#messages li.msg.user').length === 1")
