"""The regex-script editor on the tavern panel, in Chromium: every field of SillyTavern's regex editor is
written into the card file (unknown fields kept), a pattern that cannot compile is refused with nothing
written, scripts are added with the editor's defaults and deleted."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import Any

from test_web_tavern_regex import tea_house_card
from web_harness import Served, screenshot, wait_ready

CARD = "雨夜茶馆·正则"


def said(page: Any, text: str, error: bool = False) -> None:
    page.locator("#toast.error" if error else "#toast:not(.error)", has_text=text).wait_for()
    page.evaluate("() => { const box = document.getElementById('toast'); box.hidden = true; box.textContent = ''; }")


def _scripts(path: Any) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["data"]["extensions"]["regex_scripts"]  # type: ignore[no-any-return]


def test_regex_scripts_are_edited_added_and_deleted_in_the_card_file(served: Served, page: Any) -> None:
    data = tea_house_card()
    data["data"]["name"] = CARD  # type: ignore[index]
    scripts = data["data"]["extensions"]["regex_scripts"]  # type: ignore[index]
    scripts[0].update({"id": "a1", "trimStrings": [], "promptOnly": False, "runOnEdit": True, "substituteRegex": 0,
                       "minDepth": None, "maxDepth": None, "x_future": {"kept": True}})  # fmt: skip
    folder = served.home.card_dir(CARD)
    folder.mkdir(parents=True)
    path = folder / "card.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    request = urllib.request.Request(f"{served.url}/api/chats/{urllib.parse.quote(CARD)}", data=b"{}",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as response:
        chat_id = json.loads(response.read())["chat_id"]

    page.set_viewport_size({"width": 1280, "height": 800})
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{served.url}/tavern/{urllib.parse.quote(CARD)}/{chat_id}")
    wait_ready(page)
    page.locator("#regex li[data-index='0'] .regex-edit").click()
    form = page.locator("#regex .regex-editing form")
    form.locator("[data-field='findRegex']").fill("/<status>([\\s\\S]*?)<\\/status>/gi")
    form.locator("[data-field='replaceString']").fill("【$1】")
    form.locator("[data-field='trimStrings']").fill("好感\n  ")
    form.locator("[data-field='placement'][value='1']").check()
    form.locator("[data-field='minDepth']").fill("0")
    form.locator("[data-field='maxDepth']").fill("3")
    form.locator("[data-field='promptOnly']").check()
    form.locator("[data-field='markdownOnly']").uncheck()
    form.locator("[data-field='substituteRegex']").select_option("2")
    screenshot(page, "regex-editor-1280")
    form.locator(".regex-save").click()
    said(page, "正则脚本已保存")
    expected = dict(scripts[0])
    expected.update({"findRegex": "/<status>([\\s\\S]*?)<\\/status>/gi", "replaceString": "【$1】",
                     "trimStrings": ["好感", "  "], "placement": [1, 2], "minDepth": 0, "maxDepth": 3,
                     "promptOnly": True, "markdownOnly": False, "substituteRegex": 2})  # fmt: skip
    assert _scripts(path)[0] == expected
    assert list(_scripts(path)[0]) == list(scripts[0])  # same fields, same order: x_future kept in place
    assert _scripts(path)[1] == scripts[1]

    # A pattern that cannot compile: one readable line, the card file untouched.
    before = path.read_bytes()
    page.locator("#regex li[data-index='0'] .regex-edit").click()
    form = page.locator("#regex .regex-editing form")
    form.locator("[data-field='findRegex']").fill("/(未闭合/g")
    form.locator(".regex-save").click()
    said(page, "无法编译", error=True)
    assert path.read_bytes() == before

    page.click("#regex-new")
    form = page.locator("#regex-new-form form")
    form.locator("[data-field='scriptName']").fill("去掉旁白")
    form.locator("[data-field='findRegex']").fill("/（旁白：.*?）/g")
    # The toast may only say "saved" once the page shows it: hold the list's reload and look.
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/api/tavern/**", hold)
    form.locator(".regex-save").click()
    while not held:  # the reload is asked for only after the save was answered
        page.wait_for_timeout(20)
    assert "已保存" not in page.inner_text("#toast") and page.locator("#regex li[data-index='2']").count() == 0
    for route in held:
        route.continue_()
    page.unroute("**/api/tavern/**", hold)
    said(page, "正则脚本已保存")
    added = _scripts(path)[2]
    assert added["scriptName"] == "去掉旁白" and added["findRegex"] == "/（旁白：.*?）/g"
    assert added["placement"] == [2] and added["runOnEdit"] is True and added["minDepth"] is None
    assert len(added["id"]) == 36  # a uuid, as the editor gives a new script
    assert page.locator("#regex li[data-index='2']").count() == 1

    page.locator("#regex li[data-index='1'] .regex-edit").click()
    page.locator("#regex .regex-editing .regex-delete").click()
    said(page, "正则脚本已删除")
    assert [s["scriptName"] for s in _scripts(path)] == ["状态栏", "去掉旁白"]

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    wait_ready(page)
    page.locator("#regex li[data-index='0'] .regex-edit").click()
    page.locator("#regex .regex-editing form").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing scrolls sideways on a phone
    screenshot(page, "regex-editor-390")
