"""Every page at a phone's width (390×844) in Chromium: nothing scrolls sideways, and on the chat page
the composer is in view without scrolling — with Chinese data long enough to push at the edges."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from web_harness import Served, beats_done, open_new_chat, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.vault import Vault

CARD = urllib.parse.quote("青梧")
# Long lines without spaces, Chinese and Latin (a URL): they must wrap, not widen the page.
LONG = "栖水镇东头那间临河的客栈" * 12 + " https://example.org/" + "qishui" * 30


def test_no_page_scrolls_sideways_on_a_phone(served: Served, page: Any) -> None:
    prompts = [{"identifier": "main", "name": LONG, "role": "system", "content": LONG},
               {"identifier": "chatHistory", "name": "Chat History", "marker": True}]  # fmt: skip
    order = [{"identifier": "main", "enabled": True}, {"identifier": "chatHistory", "enabled": True}]
    preset = {"prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}]}
    (served.home.presets_dir / "雨夜长卷.json").write_text(json.dumps(preset, ensure_ascii=False), encoding="utf-8")
    (served.home.personas_dir / "说书人.json").write_text(
        json.dumps({"name": "说书人", "description": LONG}, ensure_ascii=False), encoding="utf-8"
    )
    Vault(served.home).snapshot(f"手机宽度测试 {LONG}")

    page.set_viewport_size({"width": 390, "height": 844})
    chat = open_new_chat(page, served.url)
    served.fake.script([text_reply(f"*{LONG}*，“{LONG}”\n\n`{LONG}`")])
    page.fill("#composer", LONG)
    page.click("#send")
    beats_done(page, 1)
    chat_files = served.home.card_dir("青梧") / "chats" / chat
    (chat_files / "title.txt").write_text(LONG[:180] + "\n", encoding="utf-8")  # a long chat title
    pages = {
        "chat": f"/chat/{CARD}/{chat}",
        "cards": "/",
        "settings": "/settings",  # the personas are on it
        "lore": "/lore",
        "lore-book": f"/lore?book={urllib.parse.quote('栖水镇')}",
        "presets": f"/presets/{CARD}",
        "studio": f"/studio/{CARD}",
        "vault": "/vault",
        "tavern": f"/tavern/{CARD}/{chat}",
        "entries": f"/entries/{CARD}",
        "inspect": f"/inspect/{CARD}/{chat}",
    }
    wide = {}
    for name, path in pages.items():
        page.goto(served.url + path)
        wait_ready(page)
        if name == "settings":
            page.locator("#personas[data-ready='1']").wait_for()
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width[0] > min(width[1], 390):
            culprits = page.evaluate(
                "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth"
                " && ![...e.children].some(c => c.getBoundingClientRect().right > innerWidth))"
                ".slice(0, 8).map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className)"
            )
            wide[name] = (width, culprits)
        screenshot(page, f"phone-{name}-390")
        if name == "chat":
            box = page.locator("#composer").bounding_box()
            send = page.locator("#send").bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box  # in view, without scrolling
            assert send["y"] + send["height"] <= 844, send
    assert not wide, wide
