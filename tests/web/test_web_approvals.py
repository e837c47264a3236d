"""The approval dialog: in work mode the sandbox asks before a bash call; the beat waits for the
answer given in the browser (allow once, deny)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, tool_call_reply

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_allow_once_then_deny(served: Served, page: Page) -> None:
    marker = served.home.card_dir("青梧") / "批准过.txt"
    served.fake.script(
        [
            tool_call_reply("call-1", "bash", {"command": "python3 -c 'print(6*7)' > 批准过.txt && cat 批准过.txt"}),
            text_reply("算好了：四十二。"),
            tool_call_reply("call-2", "bash", {"command": "python3 -c 'open(\"不许.txt\", \"w\")'"}),
            text_reply("好，不动它。"),
        ]
    )
    open_new_chat(page, served.url)
    page.select_option("#mode", "work")
    page.wait_for_function("document.querySelector('#mode').value === 'work'")
    page.fill("#composer", "帮我算一下六乘七")
    page.click("#send")
    dialog = page.locator("dialog#approval[open]")
    dialog.wait_for()
    assert page.inner_text("#approval-tool") == "bash"
    assert "print(6*7)" in page.inner_text("#approval-args")
    assert page.inner_text("#approval-unit").strip() not in ("", "—")
    # The beat waits: nothing ran yet and the model was asked only once.
    assert not marker.exists() and len(served.fake.chat_requests) >= 1
    asked_before = len(served.fake.chat_requests)
    screenshot(page, "approval")
    dialog.locator("button[value='once']").click()
    beats_done(page, 1)
    assert marker.read_text(encoding="utf-8").strip() == "42"
    assert len(served.fake.chat_requests) == asked_before + 1
    result = page.locator(".tool-call .tool-result").last
    assert "42" in result.text_content() and "error" not in (result.get_attribute("class") or "")  # type: ignore[operator]

    page.fill("#composer", "再建一个文件")
    page.click("#send")
    dialog.wait_for()
    # Escape denies (the dialog's cancel); it must not also stop the beat (the page's Escape hotkey).
    page.keyboard.press("Escape")
    beats_done(page, 2)
    assert "好，不动它。" in page.locator(".msg.assistant").last.inner_text()
    assert not (served.home.card_dir("青梧") / "不许.txt").exists()
    denied = page.locator(".tool-call .tool-result.error")
    assert denied.count() == 1
    # The model was told the call was refused.
    tool_messages = [m for m in served.fake.chat_requests[-1].body["messages"] if m.get("role") == "tool"]
    assert tool_messages and tool_messages[-1]["tool_call_id"] == "call-2"
    screenshot(page, "chat-tools")
