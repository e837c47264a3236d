"""Story memory in the web, as `pear chat` has it: after a sealed stage beat the side model (here the
chat's own fake model: no `[side_model]`) keeps the scene notes; the next beat's request carries
【世界状态】, and the prompt inspector shows the side call as the beat's 场记 round."""

from __future__ import annotations

import json
import urllib.parse
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, wait_ready

from peargarden.modes.stage.memory import NOTES_TYPE
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.chats import ChatFile

if TYPE_CHECKING:
    from playwright.sync_api import Page

PATCH = {
    "patch": {
        "time": "第一日 黄昏",
        "location": "听雨轩前堂",
        "characters": {"周伯": {"affinity": 5, "status": "在门口收伞", "at": "听雨轩"}},
        "plot_threads": ["那把旧油纸伞的主人"],
    }
}


def test_scene_notes_fill_the_world_state_after_a_beat(served: Served, page: Page) -> None:
    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    config.write_text(before.replace("scene_notes = false", "scene_notes = true"), encoding="utf-8")
    try:
        served.fake.script(
            [
                text_reply("周伯收起伞，笑着进了门：“掌柜的，还有热茶吗？”"),
                # The scene keeper's reply, as models write it: the patch in a fence.
                text_reply("```json\n" + json.dumps(PATCH, ensure_ascii=False) + "\n```"),
                text_reply("青梧提起铜壶，给周伯斟了一碗姜茶。"),
                text_reply("{}"),  # nothing changed in the second beat
            ]
        )
        # The module's fake server is shared: count this test's requests from here (any test order).
        first = len(served.fake.chat_requests)
        chat_id = open_new_chat(page, served.url)
        page.fill("#composer", "我看着门口进来的老人。")
        page.click("#send")
        beats_done(page, 1)
        chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
        notes = chat.tree.customs(NOTES_TYPE)
        assert len(notes) == 1 and notes[0].body["data"]["ledger"]["location"] == "听雨轩前堂"
        # The scene notes are the chat's last entry, and no node of the branch tree (issue 47): the tree
        # marks the reply before them as where the chat is, whether the notes were written before the
        # page read the tree with the reply or after.
        reply = chat.tree.messages()[-1]
        assert chat.tree.leaf == notes[0].id and notes[0].parent_id == reply.id
        page.wait_for_selector(f"#tree .node.leaf[data-id='{reply.id}']")
        assert page.locator(f"#tree .node[data-id='{notes[0].id}']").count() == 0

        page.fill("#composer", "周伯，这把伞是谁的？")
        page.click("#send")
        beats_done(page, 2)
        # The second beat's request carried the state the first beat's scene notes wrote.
        sent = served.fake.chat_requests[first + 2].body["messages"]
        injection = str(sent[-1]["content"])
        assert "【世界状态】" in injection and "时间：第一日 黄昏" in injection and "地点：听雨轩前堂" in injection
        assert "周伯：好感 5；状态：在门口收伞；所在：听雨轩" in injection
        assert "黄昏" not in str(served.fake.chat_requests[first].body["messages"][-1]["content"])

        # The inspector: the beat's own call, then its scene-notes call, labelled as such.
        page.goto(f"{served.url}/inspect/{urllib.parse.quote('青梧')}/{chat_id}")
        wait_ready(page)
        page.wait_for_selector("body[data-source='last'] .ledger")
        rounds = page.locator("#rounds .round")
        assert rounds.count() == 2
        assert rounds.nth(1).get_attribute("data-purpose") == "scene_notes"
        assert "场记" in rounds.nth(1).locator("h2").inner_text()
        assert "【世界状态】" in rounds.nth(0).inner_text() and "周伯，这把伞是谁的？" in rounds.nth(1).inner_text()
        screenshot(page, "inspect-scene-notes")
    finally:
        config.write_text(before, encoding="utf-8")


def test_a_configured_side_model_uses_its_stored_key_and_is_recorded(served: Served, page: Page) -> None:
    from peargarden.app.settings.stored_keys import forget_key, store_key

    config = served.home.config_file
    before = config.read_text(encoding="utf-8")
    side = (
        '\n[side_model]\nprovider = "side"\nmodel = "side-model"\n\n'
        f'[providers.side]\nbase_url = "{served.fake.base_url}"\n'  # no key here: the stored one
    )
    config.write_text(before.replace("scene_notes = false", "scene_notes = true") + side, encoding="utf-8")
    store_key(served.home, "side", "sk-side-stored")  # typed into the settings page
    try:
        served.fake.script([text_reply("青梧点了点头。"), text_reply(json.dumps(PATCH, ensure_ascii=False))])
        chat_id = open_new_chat(page, served.url)
        page.fill("#composer", "掌柜的，外面还在下雨吗？")
        page.click("#send")
        beats_done(page, 1)
        main_call, side_call = served.fake.chat_requests[-2:]
        assert main_call.body["model"] == "fake-model" and side_call.body["model"] == "side-model"
        assert side_call.headers["authorization"] == "Bearer sk-side-stored"
        chat = ChatFile.open(served.home.card_dir("青梧") / "chats", chat_id)
        assert chat.tree.customs(NOTES_TYPE)[-1].body["data"]["ledger"]["time"] == "第一日 黄昏"

        page.goto(f"{served.url}/inspect/{urllib.parse.quote('青梧')}/{chat_id}")
        wait_ready(page)
        page.wait_for_selector("body[data-source='last'] .ledger")
        rounds = page.locator("#rounds .round")
        assert rounds.count() == 2 and rounds.nth(1).get_attribute("data-purpose") == "scene_notes"
        assert "side-model" in rounds.nth(1).inner_text()
    finally:
        config.write_text(before, encoding="utf-8")
        forget_key(served.home, "side")
