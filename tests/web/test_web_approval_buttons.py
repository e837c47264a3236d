"""The questions the chat page asks — may a card's regex scripts run, may this tool call run — with
their buttons on one line at a phone's width (390 px): "不允许" wrapped to three lines (issue 47)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from web_harness import Served, beats_done, open_new_chat, screenshot, tool_call_reply

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

# For each button: its top, its height and the height of one line of its text.
BUTTONS = """(selector) => [...document.querySelectorAll(selector)].map((button) => {
  const box = button.getBoundingClientRect();
  const style = getComputedStyle(button);
  const line = parseFloat(style.lineHeight) || 1.3 * parseFloat(style.fontSize);
  const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const border = parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
  return { top: Math.round(box.top), right: box.right, lines: Math.round((box.height - padding - border) / line) };
})"""


def one_line(page: Page, selector: str) -> None:
    buttons = page.evaluate(BUTTONS, selector)
    assert len(buttons) >= 2, buttons
    assert {button["top"] for button in buttons} == {buttons[0]["top"]}, buttons  # one row
    assert all(button["lines"] == 1 for button in buttons), buttons  # no label wraps
    assert max(button["right"] for button in buttons) <= 390, buttons  # on the screen


def test_the_regex_question_has_its_buttons_on_one_line_on_a_phone(served: Served, page: Page) -> None:
    card = "听雨长名字的琴师"
    folder = served.home.card_dir(card)
    folder.mkdir(parents=True)
    pattern = "/<status>[\\\\s\\\\S]*?<\\\\/status>/g"
    script = {"scriptName": "去掉状态栏和心情和好感度的一长串说明", "findRegex": pattern,
              "replaceString": "", "placement": [2], "promptOnly": True, "disabled": False}  # fmt: skip
    data = {"name": card, "first_mes": "琴声停了。", "extensions": {"regex_scripts": [script]}}
    (folder / f"{card}.json").write_text(json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": data},
                                                    ensure_ascii=False), encoding="utf-8")  # fmt: skip
    page.set_viewport_size({"width": 390, "height": 844})
    open_new_chat(page, served.url, card)
    page.locator("#regex-allow-ask").wait_for()
    screenshot(page, "regex-allowance-ask-phone")
    one_line(page, "#regex-allow-ask button")


def test_the_approval_dialog_has_its_buttons_on_one_line_on_a_phone(served: Served, page: Page) -> None:
    served.fake.script([tool_call_reply("call-9", "bash", {"command": "python3 -c 'print(1)'"}), text_reply("好。")])
    page.set_viewport_size({"width": 390, "height": 844})
    open_new_chat(page, served.url)
    page.select_option("#mode", "work")
    page.wait_for_function("document.querySelector('#mode').value === 'work'")
    page.fill("#composer", "算一下")
    page.click("#send")
    dialog = page.locator("dialog#approval[open]")
    dialog.wait_for()
    screenshot(page, "approval-phone")
    one_line(page, "dialog#approval .approval-choices button")
    dialog.locator("button[value='deny']").click()
    beats_done(page, 1)
