"""The entries panel and the prompt inspector: switching an entry off takes it out of the next
request; the inspector shows slots, roles and tokens, and diffs tavern against stage."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, new_chat, open_new_chat, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

ENTRY = "写之前先查"


def entry_body(served: Served) -> str:
    url = f"{served.url}/api/entries/{urllib.parse.quote('青梧')}"
    with urllib.request.urlopen(url, timeout=20) as response:
        files = json.loads(response.read())
    for file in files:
        for entry in file["entries"]:
            if entry["name"] == ENTRY:
                return str(entry["content"])
    raise AssertionError(f"no entry {ENTRY}")


def inspector_text(page: Page, served: Served, chat_id: str, source: str) -> str:
    page.goto(f"{served.url}/inspect/{urllib.parse.quote('青梧')}/{chat_id}")
    wait_ready(page)
    page.select_option("#source", source)
    page.wait_for_selector(f"body[data-source='{source}'] .ledger")
    return str(page.inner_text("#rounds"))


def test_switching_an_entry_off_removes_it_from_the_request(served: Served, page: Page) -> None:
    body = entry_body(served)
    first_line = body.splitlines()[0]
    served.fake.script([text_reply("好。"), text_reply("又好。")])
    chat_id = open_new_chat(page, served.url)
    page.fill("#composer", "你好")
    page.click("#send")
    beats_done(page, 1)
    assert first_line in served.fake.chat_requests[-1].body["messages"][0]["content"]
    shown = inspector_text(page, served, chat_id, "last")
    assert first_line in shown
    # Slots, roles and token counts per message.
    rows = page.locator(".ledger tr.row")
    assert rows.count() >= 3
    assert page.locator(".ledger tr.system td.num").first.inner_text().isdigit()
    screenshot(page, "inspector")

    page.goto(f"{served.url}/entries/{urllib.parse.quote('青梧')}")
    wait_ready(page)
    row = page.locator("[data-file='global'] .entry", has_text=ENTRY)
    switch = row.locator("input.switch")
    assert switch.is_checked()
    switch.click()
    page.locator("[data-file='global'] .entry.off", has_text=ENTRY).wait_for()
    screenshot(page, "entries")
    text = served.home.append_system_file.read_text(encoding="utf-8")
    assert f"## {ENTRY}" in text  # the file keeps the entry, wrapped in a comment

    assert first_line not in inspector_text(page, served, chat_id, "dry:stage")
    page.goto(f"{served.url}/chat/{urllib.parse.quote('青梧')}/{chat_id}")
    wait_ready(page)
    page.fill("#composer", "再说一句")
    page.click("#send")
    beats_done(page, 1)
    assert first_line not in served.fake.chat_requests[-1].body["messages"][0]["content"]
    assert first_line not in inspector_text(page, served, chat_id, "last")
    # And back on: the next request carries it again.
    page.goto(f"{served.url}/entries/{urllib.parse.quote('青梧')}")
    wait_ready(page)
    page.locator("[data-file='global'] .entry", has_text=ENTRY).locator("input.switch").click()
    page.locator("[data-file='global'] .entry:not(.off)", has_text=ENTRY).wait_for()
    assert first_line in inspector_text(page, served, chat_id, "dry:stage")


def test_editing_an_entry_and_the_tavern_stage_diff(served: Served, page: Page) -> None:
    chat_id = new_chat(served.url)  # the chat page itself is not needed here
    page.goto(f"{served.url}/entries/{urllib.parse.quote('青梧')}")
    wait_ready(page)
    row = page.locator("[data-file='global'] .entry", has_text="稿纸")
    row.locator("button.edit").click()
    row.locator("textarea").fill("稿纸只给你自己看。每拍写完就封存。")
    row.locator("button.save").click()
    page.locator("#toast:not(.error)").wait_for()
    assert "稿纸只给你自己看。每拍写完就封存。" in served.home.append_system_file.read_text(encoding="utf-8")
    assert "稿纸只给你自己看" in inspector_text(page, served, chat_id, "dry:stage")
    page.click("#diff-run")
    diff = page.locator("#diff")
    diff.locator(".add").first.wait_for()
    assert diff.locator(".del").count() > 0
    screenshot(page, "inspector-diff")
