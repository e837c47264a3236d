"""The card studio and card HTML: import a card by upload, see its fields, greetings and lorebook
entries, edit a slot with the syntax check, apply — and a malicious greeting runs nothing."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, screenshot, wait_ready

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.cards import open_card
from peargarden.workspace.regex_scripts import set_regex_allowance

if TYPE_CHECKING:
    from playwright.sync_api import Page

EVIL_GREETING = (
    "<p>欢迎来到<b>黑店</b>。</p>"
    "<script>window.pwned = 1; try { parent.pwned = 1; } catch (e) {}</script>"
    '<img src="x" onerror="window.pwned = 2; try { parent.pwned = 2; } catch (e) {}">'
)


STATUS_BAR = '<div class="bar" style="color:#a33" onclick="parent.pwned=5">$1</div><script>parent.pwned=6</script>'


def evil_card() -> dict[str, object]:
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "黑店老板",
            "description": "渡口边一家黑店的老板，笑里藏刀。",
            "personality": "圆滑",
            "scenario": "夜里，渡口。",
            "first_mes": EVIL_GREETING,
            "mes_example": "",
            "alternate_greetings": ["<div style=\"color:red\" onmouseover=\"parent.pwned=3\">客官里边请。</div>"],
            "character_book": {
                "name": "黑店设定",
                "entries": [
                    {"keys": ["蒙汗药"], "content": "店里的酒下了蒙汗药。", "comment": "蒙汗药", "insertion_order": 20,
                     "enabled": True, "constant": False, "id": 1},
                    {"keys": [], "content": "黑店开在渡口东头。", "comment": "黑店位置", "insertion_order": 10,
                     "enabled": True, "constant": True, "id": 2},
                ],
            },
            "extensions": {
                "TavernHelper_scripts": [
                    {"name": "状态栏", "type": "script", "content": "parent.pwned = 4;\nconsole.log('状态栏');"}],
                "regex_scripts": [
                    {"scriptName": "状态栏美化", "findRegex": "/<status>(.*?)<\\/status>/g",
                     "replaceString": STATUS_BAR, "placement": [2], "markdownOnly": True, "disabled": False}],
            },
        },
    }  # fmt: skip


def test_import_studio_and_a_malicious_greeting(served: Served, page: Page, tmp_path: Path) -> None:
    path = tmp_path / "黑店老板.json"
    path.write_text(json.dumps(evil_card(), ensure_ascii=False), encoding="utf-8")
    page.goto(served.url + "/")
    page.set_input_files("#file-input", str(path))
    page.locator(".card-tile", has_text="黑店老板").wait_for()
    folder = served.home.card_dir("黑店老板")
    assert folder.is_dir()

    page.goto(f"{served.url}/studio/{urllib.parse.quote('黑店老板')}")
    wait_ready(page)
    assert "笑里藏刀" in page.inner_text("#fields")
    entries = page.locator(".lore-entry")
    assert entries.count() == 2
    # Blue constant entry first (order 10), then the green keyword entry with its key.
    assert "constant" in (entries.nth(0).get_attribute("class") or "")
    assert "keyword" in (entries.nth(1).get_attribute("class") or "") and "蒙汗药" in entries.nth(1).inner_text()
    frames = page.locator("iframe.greeting-frame")
    assert frames.count() == 2
    # Sandboxed with no scripts at all (the page's origin kept only so the page can size the frame).
    assert all(frames.nth(i).get_attribute("sandbox") == "allow-same-origin" for i in range(2))

    # The 创作/ slots: a script with a syntax error is caught; fixed, it goes back into the card.
    page.click("#expand")
    select = page.locator("#slot-select")
    select.wait_for()
    script = next(v for v in select.locator("option").evaluate_all("os => os.map(o => o.value)") if v.endswith(".js"))
    page.select_option("#slot-select", script)
    page.fill("#slot-text", "function (")
    page.click("#slot-save")
    page.locator("#problems", has_text=".js:1").wait_for()
    screenshot(page, "studio")
    page.fill("#slot-text", "console.log('状态栏，改过');")
    page.click("#slot-save")
    page.wait_for_function("document.querySelector('#problems').textContent === ''")
    page.click("#apply")
    page.locator("#toast:not(.error)", has_text="已写回").wait_for()
    scripts = open_card(served.home, "黑店老板").load_card().data["extensions"]["TavernHelper_scripts"]
    assert scripts[0]["content"] == "console.log('状态栏，改过');"

    # The user lets the card's own regex scripts run (its status-bar display script below needs that).
    set_regex_allowance(open_card(served.home, "黑店老板"), True)

    # The chat shows the greeting in a sandboxed frame: nothing in it runs.
    page.goto(f"{served.url}/chat/{urllib.parse.quote('黑店老板')}")
    page.click("#start-chat")  # a card without chats: the page starts one on request (no GET creates it)
    page.wait_for_url("**/chat/*/*")
    wait_ready(page)
    frame_el = page.locator(".msg.greeting iframe")
    frame_el.first.wait_for()
    assert frame_el.first.get_attribute("sandbox") == "allow-same-origin"
    frame = frame_el.first.element_handle().content_frame()
    assert frame is not None
    frame.wait_for_load_state()
    assert frame.locator("b").inner_text() == "黑店"  # the card's HTML is shown …
    frame.locator("img").hover()
    page.locator(".msg.greeting iframe").first.hover()
    # … and neither its script nor its onerror handler ran, here or inside the frame.
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert frame.evaluate("typeof window.pwned") == "undefined"
    assert page.evaluate("document.querySelector('[onerror], [onmouseover]') === null")

    # A status bar made by the card's display regex: shown (sandboxed), its script and handler inert.
    served.fake.script([text_reply("客官慢用。<status>好感 +1</status>")])
    page.fill("#composer", "来一壶酒。")
    page.click("#send")
    beats_done(page, 1)
    reply = page.locator(".msg.assistant").last.locator("iframe")
    assert reply.get_attribute("sandbox") == "allow-same-origin"
    bar_frame = reply.element_handle().content_frame()
    assert bar_frame is not None
    bar_frame.wait_for_load_state()
    bar = bar_frame.locator("div.bar")
    assert bar.inner_text() == "好感 +1"
    bar.click()
    assert page.evaluate("typeof window.pwned") == "undefined"
    # The stored reply is unchanged: the regex only changes what is shown.
    chat_dir = next((served.home.card_dir("黑店老板") / "chats").iterdir())
    session_text = (chat_dir / "session.jsonl").read_text(encoding="utf-8")
    assert "<status>好感 +1</status>" in session_text and 'class=\\"bar\\"' not in session_text
    screenshot(page, "chat-card-html")


def test_lorebook_entries_edited_and_added_in_the_studio(served: Served, page: Page) -> None:
    book_file = served.home.lorebooks_dir / "栖水镇.json"
    saved = book_file.read_bytes()
    supplement = served.home.card_dir("青梧") / "补充设定集.json"
    try:
        page.goto(f"{served.url}/studio/{urllib.parse.quote('青梧')}")
        wait_ready(page)
        book = page.locator(".book[data-book='栖水镇']")
        green = book.locator(".lore-entry.keyword").first
        title = green.locator("div").first.inner_text().split(" · ")[0]
        green.locator(".lore-edit").click()
        green.locator(".lore-constant").check()
        green.locator(".lore-order").fill("1")
        green.locator(".lore-save").click()
        page.locator("#toast:not(.error)", has_text="条目已保存").wait_for()
        blue = page.locator(".book[data-book='栖水镇'] .lore-entry.constant", has_text=title)
        assert blue.count() == 1
        stored = json.loads(book_file.read_text(encoding="utf-8"))
        entry = next(e for e in stored["entries"].values() if (e.get("comment") or e.get("name")) == title)
        assert entry["constant"] is True and entry["order"] == 1

        new = page.locator(".book[data-book='补充设定集'] .lore-new")
        new.locator("summary").click()
        new.locator(".lore-title").fill("井水")
        new.locator(".lore-keys-input").fill("老井，井水")
        new.locator(".lore-content").fill("听雨轩后院的老井，井水冬暖夏凉。")
        new.locator(".lore-save").click()
        page.locator(".book[data-book='补充设定集'] .lore-entry.keyword", has_text="井水").wait_for()
        added = json.loads(supplement.read_text(encoding="utf-8"))["entries"]
        assert [e["key"] for e in added.values()] == [["老井", "井水"]]
        assert all(int(uid) >= 9000 for uid in added)
        screenshot(page, "studio-lore")
    finally:
        book_file.write_bytes(saved)
        supplement.unlink(missing_ok=True)
