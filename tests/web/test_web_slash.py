"""STscript and Quick Replies on the chat page, in Chromium: a "/" line in the chat bar runs as
SillyTavern's slash commands (with the command list under the box), a script's dialog is answered in
the page, and a Quick Reply set file is imported, switched on, clicked and run on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from web_harness import Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import text_reply


def _scripts_done(page: Any, count: int) -> None:
    """Wait until the page has finished *count* scripts (slash.js counts them on <body>)."""
    page.wait_for_selector(f"body[data-scripts='{count}']")


def _shows(page: Any, text: str) -> None:
    """Wait until a message of the chat shows *text*."""
    page.wait_for_function(
        "text => [...document.querySelectorAll('#messages li.msg')].some(li => li.innerText.includes(text))", arg=text
    )


def test_a_slash_line_runs_as_stscript_with_the_command_list(served: Served, page: Any) -> None:
    open_new_chat(page, served.url)
    page.click("#composer")
    page.keyboard.type("/sen")
    help_list = page.locator("#slash-help")
    # The list follows each keystroke: wait for the one drawn for "/sen", not the first one shown.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#slash-help li code')].every(c => c.textContent.startsWith('/sen'))"
        " && document.querySelectorAll('#slash-help li').length > 0"
    )
    names = help_list.locator("li code").all_inner_texts()
    assert any(name.startswith("/send") for name in names) and any(name.startswith("/sendas") for name in names)
    page.keyboard.press("Tab")
    assert page.input_value("#composer") == "/send "
    page.fill("#composer", "/setvar key=地点 渡口 | /sendas name=青梧 客官，这里是{{getvar::地点}}。 | /echo 到了")
    page.click("#send")
    _scripts_done(page, 1)
    assert page.text_content("#toast") == "到了"  # the toast hides after a while; its text stays
    _shows(page, "客官，这里是渡口。")
    page.fill("#composer", "/setinput 草稿里的字")
    page.click("#send")
    _scripts_done(page, 2)
    assert page.input_value("#composer") == "草稿里的字"


def test_a_scripts_dialog_is_answered_in_the_page(served: Served, page: Any) -> None:
    open_new_chat(page, served.url)
    page.fill("#composer", "/input default=客官 怎么称呼？ | /sendas name=青梧 {{pipe}}，请坐。")
    page.click("#send")
    dialog = page.locator("dialog.slash-dialog")
    dialog.wait_for()
    assert "怎么称呼？" in dialog.inner_text()
    dialog.locator("textarea").fill("怀瑾")
    dialog.get_by_role("button", name="确定").click()
    _shows(page, "怀瑾，请坐。")
    page.fill("#composer", '/buttons labels=["住店","吃饭"] 要做什么？ | /sendas name=青梧 好，{{pipe}}。')
    page.click("#send")
    page.locator("dialog.slash-dialog").get_by_role("button", name="吃饭").click()
    _shows(page, "好，吃饭。")


def test_a_quick_reply_set_is_imported_clicked_and_runs_on_its_own(served: Served, page: Any, tmp_path: Path) -> None:
    # A set file as SillyTavern 1.18 exports it (Quick Reply v2).
    set_file = tmp_path / "客栈.json"
    set_file.write_text(json.dumps({
        "version": 2, "name": "客栈", "disableSend": False, "placeBeforeInput": False, "injectInput": False,
        "color": "transparent", "onlyBorderColor": False,
        "qrList": [
            {"id": 1, "showLabel": False, "label": "上茶", "icon": "", "title": "让掌柜上茶",
             "message": "/sendas name=青梧 {{char}}端来一壶热茶。", "contextList": [], "preventAutoExecute": True,
             "isHidden": False, "executeOnStartup": False, "executeOnUser": False, "executeOnAi": False,
             "executeOnChatChange": False, "executeOnGroupMemberDraft": False, "executeOnNewChat": False,
             "automationId": ""},
            {"id": 2, "showLabel": False, "label": "计数", "icon": "", "title": "",
             "message": "/incvar 回合", "contextList": [], "preventAutoExecute": True,
             "isHidden": True, "executeOnStartup": False, "executeOnUser": True, "executeOnAi": False,
             "executeOnChatChange": False, "executeOnGroupMemberDraft": False, "executeOnNewChat": False,
             "automationId": ""},
        ],
        "idIndex": 2,
    }, ensure_ascii=False), encoding="utf-8")
    served.fake.script([text_reply("好的。")])
    open_new_chat(page, served.url)
    page.click("#quick-reply-manager")
    manager = page.locator("dialog.qr-manager")
    manager.wait_for()
    manager.locator("input[type=file]").set_input_files(str(set_file))
    row = manager.locator("li[data-set='客栈']")
    row.wait_for()
    row.get_by_label("本对话").check()
    manager.get_by_role("button", name="完成").click()
    button = page.locator("#quick-replies button.qr-button", has_text="上茶")
    button.wait_for()
    assert page.locator("#quick-replies button.qr-button", has_text="计数").count() == 0  # hidden
    button.click()
    _shows(page, "青梧端来一壶热茶。")
    page.fill("#composer", "掌柜，再来一壶。")
    page.click("#send")
    beats_done(page, 1)
    # The hidden reply ran after the user's message: the chat's variable counts it.
    page.fill("#composer", "/pass 回合={{getvar::回合}} | /echo")
    page.click("#send")
    page.wait_for_function("document.querySelector('#toast').textContent === '回合=1'")
    saved = served.home.quick_replies_dir / "客栈.json"
    assert json.loads(saved.read_text(encoding="utf-8"))["qrList"][0]["label"] == "上茶"
