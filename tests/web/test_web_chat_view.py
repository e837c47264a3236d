"""The chat as a SillyTavern user expects it, in Chromium against the fake model: Markdown (sanitised),
message chrome (name, avatar, time, index, tokens, generation time), the context bar, Enter to send,
swipe arrows, chat rename and delete with undo, chat counts, phone width, and the inspector's last
beat after a server restart."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import TYPE_CHECKING

from web_harness import LiveServer, Served, SharedPage, beats_done, open_new_chat, screenshot, screenshots, wait_ready

from peargarden.testing.fake_openai import text_reply
from peargarden.web.markdown import render

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = urllib.parse.quote("青梧")


def get(url: str) -> object:
    with urllib.request.urlopen(url, timeout=20) as response:
        return json.loads(response.read())


def test_markdown_is_rendered_quotes_marked_and_sanitised() -> None:
    html = render('*她放下算盘*，**笑了**：“客官请坐。”\n下一行 `"代码"`')
    assert "<em>她放下算盘</em>" in html and "<strong>笑了</strong>" in html
    assert "<q>“客官请坐。”</q>" in html
    assert "<br>" in html  # a single line break is kept, as in SillyTavern
    assert '<code>"代码"</code>' in html  # quotes inside code stay code
    hostile = render('<img src=x onerror="alert(1)"> [点我](javascript:alert(1)) <script>alert(2)</script>')
    # What could run is gone (the script with its text), and a javascript: link is no link.
    assert "<img" not in hostile and "<script" not in hostile and "<a " not in hostile and "alert(2)" not in hostile
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">' in render("[站](https://example.org)")
    assert render('"Hello," she said.').count("<q>") == 1


def test_messages_show_markdown_and_their_chrome(served: Served, page: Page) -> None:
    served.fake.script([text_reply("*青梧抬眼*，**轻声**道：“雨要停了。”\n\n> 门外传来脚步声。")])
    chat = open_new_chat(page, served.url)
    page.fill("#composer", "雨什么时候停？")
    page.click("#send")
    beats_done(page, 1)
    reply = page.locator(".msg.assistant").last
    assert reply.locator(".md em", has_text="青梧抬眼").count() == 1
    assert reply.locator(".md strong", has_text="轻声").count() == 1
    assert reply.locator(".md q", has_text="雨要停了").count() == 1
    assert reply.locator(".md blockquote").count() == 1
    # The quote is coloured, the italics too (not the body colour).
    colour = reply.locator(".md q").evaluate("e => getComputedStyle(e).color")
    assert colour != reply.locator(".md p").first.evaluate("e => getComputedStyle(e).color")
    # Chrome: the character's name and avatar, the time, the index; tokens and time on demand.
    head = reply.locator(".msg-head")
    assert head.locator(".speaker").inner_text() == "青梧"
    assert head.locator("img.avatar").get_attribute("src") == f"/api/cards/{CARD}/avatar?size=thumb"
    assert head.locator(".msg-index").inner_text() == "#2"
    assert head.locator(".msg-time").inner_text().strip()
    user = page.locator(".msg.user").last
    assert user.locator(".speaker").inner_text() == "旅人"
    meta = reply.locator(".msg-meta")
    page.mouse.move(0, 0)
    assert not meta.is_visible()
    reply.hover()
    assert meta.is_visible()  # on hover
    page.mouse.move(0, 0)
    assert not meta.is_visible()
    page.check("#show-meta")
    assert meta.is_visible() and "词元" in meta.inner_text() and "秒" in meta.inner_text()
    state = get(f"{served.url}/api/chats/{CARD}/{chat}")
    last = state["messages"][-1]  # type: ignore[index]
    assert last["tokens"] > 5 and last["gen_seconds"] is not None and last["gen_seconds"] >= 0
    # The context bar: the last request's tokens against the context size.
    assert state["context"]["tokens"] > 0 and state["context"]["limit"] == 32768  # type: ignore[index]
    assert str(state["context"]["tokens"]) in page.inner_text("#context-bar")  # type: ignore[index]
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"chat-markdown-{width}")


def test_enter_sends_shift_enter_breaks_and_the_switch(served: Served, page: Page) -> None:
    served.fake.script([text_reply("好。"), text_reply("再好。")])
    open_new_chat(page, served.url)
    box = page.locator("#composer")
    box.click()
    box.type("第一行")
    box.press("Shift+Enter")
    box.type("第二行")
    assert box.input_value() == "第一行\n第二行"
    box.press("Enter")
    beats_done(page, 1)
    assert box.input_value() == ""
    assert "第一行\n第二行" in page.locator(".msg.user").last.inner_text()
    page.uncheck("#enter-sends")
    box.type("换行")
    box.press("Enter")
    assert box.input_value() == "换行\n"
    page.reload()
    wait_ready(page)
    assert not page.is_checked("#enter-sends")  # the choice is remembered
    box.type("用 Ctrl+Enter 发")
    box.press("Control+Enter")
    beats_done(page, 1)
    assert page.locator(".msg.user").count() == 2
    screenshots(page, "chat-enter-switch")
    page.check("#enter-sends")


def test_swipe_arrows_only_where_there_is_something_to_swipe(served: Served, page: Page) -> None:
    served.fake.script([text_reply("第一版。"), text_reply("第二版。")])
    open_new_chat(page, served.url)
    # A lone greeting (the card has no alternate greetings): no arrows at all.
    assert page.locator("button.swipe").count() == 0
    page.fill("#composer", "你好")
    page.click("#send")
    beats_done(page, 1)
    # The first reply: no ‹ (nothing before it), › asks for another.
    assert page.locator(".swipe-prev").count() == 0 and page.locator(".swipe-next").count() == 1
    page.set_viewport_size({"width": 390, "height": 844})
    box = page.locator(".swipe-next").bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44  # a finger can hit it
    page.click(".swipe-next")
    beats_done(page, 2)
    assert page.inner_text(".swipe-count") == "2/2" and page.locator(".swipe-prev").count() == 1
    screenshots(page, "chat-swipes")


def test_phone_width_composer_visible_and_no_sideways_scroll(served: Served, page: Page) -> None:
    served.fake.script([text_reply("长长的回答。" * 60) for _ in range(3)])
    page.set_viewport_size({"width": 390, "height": 844})
    open_new_chat(page, served.url)
    for number in range(3):
        page.fill("#composer", f"第{number + 1}句")
        page.click("#send")
        beats_done(page, number + 1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#composer").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844  # in view, without scrolling
    assert page.locator("#send").bounding_box()["y"] + 10 <= 844  # type: ignore[index]
    screenshot(page, "chat-phone-long")
    screenshot(page, "chat-phone-long-viewport", viewport_only=True)


def test_rename_delete_and_undo_with_correct_counts(served: Served, page: Page) -> None:
    served.fake.script([text_reply("一。"), text_reply("二。")])
    chat = open_new_chat(page, served.url)
    for number, text in enumerate(("甲", "乙"), 1):
        page.fill("#composer", text)
        page.click("#send")
        beats_done(page, number)
    counts = {c["chat_id"]: c["messages"] for c in get(f"{served.url}/api/chats/{CARD}")}  # type: ignore[attr-defined]
    assert counts[chat] == 5  # greeting + two rounds
    # A branch from the greeting: the active branch has one message, and the list says so.
    page.locator(".msg.assistant").first.locator("button.branch").click()
    page.wait_for_function("document.querySelectorAll('.msg.user').length === 0")
    counts = {c["chat_id"]: c["messages"] for c in get(f"{served.url}/api/chats/{CARD}")}  # type: ignore[attr-defined]
    assert counts[chat] == 1
    page.once("dialog", lambda dialog: dialog.accept("雨夜的客栈"))
    page.click("#rename-chat")
    renamed = "document.getElementById('chat-list').selectedOptions[0]?.textContent.startsWith('雨夜的客栈') === true"
    page.wait_for_function(renamed)
    assert (served.home.card_dir("青梧") / "chats" / chat / "title.txt").read_text(encoding="utf-8") == "雨夜的客栈\n"
    screenshots(page, "chat-renamed")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#remove-chat")
    page.locator("#removed").wait_for()
    folder = served.home.card_dir("青梧") / "chats" / chat
    assert not folder.exists()
    assert chat not in [c["chat_id"] for c in get(f"{served.url}/api/chats/{CARD}")]  # type: ignore[attr-defined]
    assert page.is_disabled("#send")
    screenshots(page, "chat-removed")
    with page.expect_navigation():
        page.click("#undo-remove")
    wait_ready(page)
    assert folder.is_dir()
    assert page.locator(".msg").count() == 1
    restored = {c["chat_id"]: c for c in get(f"{served.url}/api/chats/{CARD}")}  # type: ignore[attr-defined]
    assert restored[chat]["title"] == "雨夜的客栈" and restored[chat]["messages"] == 1


def test_inspector_keeps_the_last_beat_across_a_restart(served: Served, page: Page) -> None:
    served.fake.script([text_reply("记下了。")])
    chat = open_new_chat(page, served.url)
    page.fill("#composer", "请记住：灯笼是红的。")
    page.click("#send")
    beats_done(page, 1)
    before = get(f"{served.url}/api/inspect/{CARD}/{chat}?source=last")
    with LiveServer(served.home) as restarted:  # a new process would read the same data folder
        after = get(f"{restarted.base_url}/api/inspect/{CARD}/{chat}?source=last")
        assert after == before and after["in_context"]  # type: ignore[index]
        assert any("灯笼是红的" in m["content"] for m in after["rounds"][0]["messages"])  # type: ignore[index]
        page.goto(f"{restarted.base_url}/chat/{CARD}/{chat}")
        wait_ready(page)
        assert page.locator(".msg.in-context").count() >= 2
        assert page.locator(".msg.assistant").last.locator(".msg-meta").inner_text().count("秒") == 1
        page.goto(f"{restarted.base_url}/inspect/{CARD}/{chat}")
        wait_ready(page)
        page.locator("text=灯笼是红的").first.wait_for()
        screenshots(page, "inspect-after-restart")


def st_chat_lines(*messages: tuple[bool, str]) -> str:
    """A SillyTavern chat JSONL (1.12 shape): the header, then one line per message."""
    head = {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-30@21h05m03s", "chat_metadata": {}}
    lines = [json.dumps(head, ensure_ascii=False)]
    for is_user, text in messages:
        lines.append(json.dumps({"name": "旅人" if is_user else "青梧", "is_user": is_user, "is_system": False,
                                 "send_date": "2026-11-30@21h05m09s", "mes": text, "extra": {}},
                                ensure_ascii=False))  # fmt: skip
    return "\r\n".join(lines) + "\r\n"


def test_chat_import_from_the_page_with_a_card_picker(served: Served, page: Page, tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    chat_file = folder / "雨夜 旧档.jsonl"
    chat_file.write_text(st_chat_lines((False, "*青梧抬眼*，“客官请进。”"), (True, "掌柜，住店。")), encoding="utf-8")
    page.goto(served.url + "/")
    page.set_input_files("#file-input", str(chat_file))
    # No card picked yet: the page asks for one and sends nothing (no CLI flag, no server path).
    toast = page.locator("#toast.error")
    toast.wait_for()
    assert "选一张" in toast.inner_text() and "--card" not in toast.inner_text()
    assert not list((served.home.card_dir("青梧") / "chats").glob("雨夜*"))
    page.select_option("#import-card", "青梧")
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"import-picker-{width}")
    page.set_input_files("#file-input", [])
    with page.expect_navigation(url="**/chat/**"):
        page.set_input_files("#file-input", str(chat_file))
    wait_ready(page)
    assert page.locator(".msg.user", has_text="掌柜，住店。").count() == 1
    assert page.locator(".msg.assistant .md em", has_text="青梧抬眼").count() == 1
    screenshots(page, "import-chat-opened")
    # A damaged chat: the error names the uploaded file, never the server's scratch folder.
    bad = folder / "坏的.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    page.goto(served.url + "/")
    page.select_option("#import-card", "青梧")
    page.set_input_files("#file-input", str(bad))
    toast = page.locator("#toast.error")
    toast.wait_for()
    assert "坏的.jsonl" in toast.inner_text() and "pear-upload" not in toast.inner_text()


def picker(page: Page) -> dict[str, str]:
    """The chat picker's options: chat id → what it shows."""
    options = page.eval_on_selector_all("#chat-list option", "os => os.map(o => [o.value, o.textContent])")
    return dict(options)


def test_chat_picker_follows_beats_branches_and_deletions(served: Served, page: Page) -> None:
    served.fake.script([text_reply("一。")])
    kept = open_new_chat(page, served.url)
    gone = open_new_chat(page, served.url)
    assert picker(page)[gone].endswith(" · 1") and kept in picker(page)
    page.fill("#composer", "甲")
    page.click("#send")
    beats_done(page, 1)
    # Other tests' chats of the card are listed too: look at this chat's option only.
    shown = f"document.querySelector('#chat-list option[value=\"{gone}\"]')?.textContent"
    page.wait_for_function(f"{shown}?.endsWith(' · 3')")
    assert picker(page)[gone].endswith(" · 3")  # greeting, the user's line, the reply
    page.locator(".msg.assistant").first.locator("button.branch").click()
    page.wait_for_function("document.querySelectorAll('.msg.user').length === 0")
    page.wait_for_function(f"{shown}?.endsWith(' · 1')")
    assert picker(page)[gone].endswith(" · 1")
    options = "[...document.querySelectorAll('#chat-list option')]"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#remove-chat")
    page.locator("#removed").wait_for()
    page.wait_for_function(f"!{options}.some(o => o.value === '{gone}')")
    assert kept in picker(page) and gone not in picker(page)
    screenshots(page, "chat-picker-after-delete")


def st_line(is_user: bool, text: str, send_date: object, **more: object) -> dict[str, object]:
    return {"name": "旅人" if is_user else "青梧", "is_user": is_user, "is_system": False, "send_date": send_date,
            "mes": text, "extra": {}, **more}  # fmt: skip


def import_chat(page: Page, url: str, path: object) -> None:
    """Import a SillyTavern chat from the home page (as a user does) and wait for it to open."""
    page.goto(url + "/")
    page.select_option("#import-card", "青梧")
    with page.expect_navigation(url="**/chat/**"):
        page.set_input_files("#file-input", str(path))
    wait_ready(page)


def test_imported_messages_show_their_own_times_and_arrows_only_where_they_lead(
    served: Served, page: Page, shared_page: SharedPage, tmp_path: object
) -> None:
    from datetime import UTC, datetime
    from pathlib import Path

    def epoch(hour: int, minute: int) -> int:
        return int(datetime(2026, 12, 1, hour, minute, tzinfo=UTC).timestamp() * 1000)

    head = {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-12-01@22h15m00s", "chat_metadata": {}}
    greeting = st_line(False, "客官请进。", "December 1, 2026 10:15pm", swipe_id=0, swipes=["客官请进。"],
                       swipe_info=[{"send_date": "December 1, 2026 10:15pm", "extra": {}}])  # fmt: skip
    lines = [
        head,
        greeting,
        st_line(True, "住店。", "2026-12-01T14:16:03.120Z"),  # 1.18's ISO, UTC
        st_line(
            False,
            "楼上请。",
            epoch(14, 18),
            swipe_id=1,
            swipes=["楼下请。", "楼上请。"],
            swipe_info=[
                {"send_date": "2026-12-01T14:17:00.000Z", "extra": {}},
                {"send_date": epoch(14, 18), "extra": {}},
            ],
        ),
        st_line(True, "多少钱？", "昨天夜里"),  # a date nobody can read
        st_line(False, "三钱银子。", "2026-12-01@14h20m05s"),  # the "humanized" stamp (UTC)
    ]
    folder = Path(str(tmp_path))
    full = folder / "客栈 旧档.jsonl"
    full.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    lone = folder / "只有开场白.jsonl"
    lone.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in (head, greeting)), encoding="utf-8")

    page.set_viewport_size({"width": 1280, "height": 800})
    shared_page.emulate_timezone("Asia/Shanghai")
    import_chat(page, served.url, full)
    times = page.eval_on_selector_all(".msg .msg-time", "ts => ts.map(t => t.textContent)")
    # 1.12's local time as written; ISO and epoch times in the reader's zone (UTC+8); no wrong time.
    assert times == ["12/1 22:15", "12/1 22:16", "12/1 22:18", "", "12/1 22:20"]
    # The last reply (one swipe, after the user spoke): › asks for a new one, nothing to go back to.
    last = page.locator(".msg.assistant").last
    assert last.locator(".swipe-next").count() == 1 and last.locator(".swipe-prev").count() == 0
    assert page.locator("button.swipe").count() == 1
    screenshots(page, "chat-imported-times")

    import_chat(page, served.url, lone)
    # The first message alone, with no alternate greeting: nothing to swipe to, so no arrow at all.
    assert page.locator(".msg").count() == 1 and page.locator("button.swipe").count() == 0
    assert page.inner_text(".msg .msg-time") == "12/1 22:15"
    screenshots(page, "chat-imported-greeting")


def test_the_context_bar_in_tavern_mode_measures_against_the_presets_budget(served: Served, page: Page) -> None:
    prompts = [{"identifier": "main", "name": "身份", "role": "system", "content": "你是写古风故事的作者。"},
               {"identifier": "chatHistory", "name": "Chat History", "marker": True}]  # fmt: skip
    order = [{"identifier": "main", "enabled": True}, {"identifier": "chatHistory", "enabled": True}]
    preset = {"prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}],
              "openai_max_context": 6000, "openai_max_tokens": 500}  # fmt: skip
    (served.home.presets_dir / "窄窗.json").write_text(json.dumps(preset, ensure_ascii=False), encoding="utf-8")
    card_json = served.home.card_dir("青梧") / "卡.json"
    saved = card_json.read_bytes()
    try:
        settings = json.loads(saved)
        settings["preset"] = "窄窗"  # tavern mode uses the library preset, not declared
        card_json.write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
        chat = open_new_chat(page, served.url)
        page.select_option("#mode", "tavern")
        # Before any request: the preset's context size, not [story] context_tokens.
        page.wait_for_function("document.querySelector('#context-bar .label').textContent.includes('/ 6000')")
        served.fake.script([text_reply("雨还在下。")])
        page.fill("#composer", "雨停了吗？")
        page.click("#send")
        beats_done(page, 1)
        context = get(f"{served.url}/api/chats/{CARD}/{chat}")["context"]  # type: ignore[index]
        # The request SillyTavern's assembly built, counted as it counted it, against that budget.
        assert context["limit"] == 6000 and context["reserve"] == 500 and context["source"] == "preset"
        assert 0 < context["tokens"] <= 6000 - 500
        assert f"{context['tokens']} / 6000" in page.inner_text("#context-bar")
        # The bar keeps the budget that request was built against until the next one.
        settings["tavern"] = {"oai": {"openai_max_context": 9000}}
        card_json.write_text(json.dumps(settings, ensure_ascii=False), encoding="utf-8")
        assert get(f"{served.url}/api/chats/{CARD}/{chat}")["context"]["limit"] == 6000  # type: ignore[index]
        screenshots(page, "chat-context-tavern")
        page.select_option("#mode", "stage")
        page.wait_for_function("document.querySelector('#mode').value === 'stage'")
    finally:
        card_json.write_bytes(saved)
