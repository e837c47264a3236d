"""The lorebook editor (/lore) in Chromium: an entry edited in the browser lands in the book file as
SillyTavern's editor stores it (its fields in ST's types, unknown fields kept, the file's own JSON
style kept); books are created, mounted, and deleted into the vault; entries added and deleted."""

from __future__ import annotations

import copy
import json
import urllib.parse
from typing import Any

from web_harness import Served, screenshot, wait_ready

from peargarden.workspace.cards import open_card
from peargarden.workspace.vault import Vault

BOOK = "雨夜茶馆设定"


def _st_entry() -> dict[str, Any]:
    """An entry as SillyTavern saves it, plus fields this version of Pear Garden does not know."""
    return {
        "uid": 0, "key": ["茶馆"], "keysecondary": [], "comment": "茶馆", "content": "渡口边的茶馆。",
        "constant": False, "vectorized": False, "selective": True, "selectiveLogic": 0, "addMemo": True,
        "order": 100, "position": 0, "disable": False, "excludeRecursion": False, "preventRecursion": False,
        "delayUntilRecursion": False, "probability": 100, "useProbability": True, "depth": 4, "group": "",
        "groupOverride": False, "groupWeight": 100, "scanDepth": None, "caseSensitive": None,
        "matchWholeWords": None, "useGroupScoring": None, "automationId": "", "role": None, "sticky": 0,
        "cooldown": 0, "delay": 0, "matchScenario": False, "triggers": [], "displayIndex": 0,
        "characterFilter": {"isExclude": False, "names": [], "tags": []},
        "futureOption": {"from": "st-1.19"}, "extensions": {"someone_else": [1, 2]},
    }  # fmt: skip


def said(page: Any, text: str, error: bool = False) -> None:
    """Wait for the toast saying *text*, then clear it (so the next wait cannot match a stale one)."""
    page.locator("#toast.error" if error else "#toast:not(.error)", has_text=text).wait_for()
    page.evaluate("() => { const box = document.getElementById('toast'); box.hidden = true; box.textContent = ''; }")


def _fill(page: Any, form: Any, field: str, value: str) -> None:
    form.locator(f"[data-field='{field}']").first.fill(value)


def test_an_entry_edited_in_the_browser_is_stored_as_sillytavern_stores_it(served: Served, page: Any) -> None:
    path = served.home.lorebooks_dir / f"{BOOK}.json"
    book = {"entries": {"0": _st_entry(), "1": {**_st_entry(), "uid": 1, "comment": "别的", "displayIndex": 1}},
            "name": "unknown top-level field"}  # fmt: skip
    path.write_text(json.dumps(book, ensure_ascii=False, indent=4), encoding="utf-8")  # ST: 4 spaces, no final \n

    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{served.url}/lore?book={urllib.parse.quote(BOOK)}")
    wait_ready(page)
    row = page.locator(".wi-entry[data-uid='0']")
    row.locator("summary .wi-title").click()
    form = row.locator("form.wi-form")
    _fill(page, form, "key", "茶馆, 茶楼 , /雨(夜|天)/i")
    _fill(page, form, "keysecondary", "阿沅，老板娘")
    form.locator("[data-field='selectiveLogic']").select_option("3")
    form.locator("[data-field='position']").select_option("4")
    form.locator("[data-field='role']").select_option("1")
    _fill(page, form, "depth", "2")
    _fill(page, form, "order", "42")
    _fill(page, form, "probability", "35")
    _fill(page, form, "group", " 天气 ")
    form.locator("[data-field='groupOverride']").check()
    _fill(page, form, "groupWeight", "60")
    form.locator("[data-field='useGroupScoring']").select_option("true")
    _fill(page, form, "scanDepth", "3")
    form.locator("[data-field='caseSensitive']").select_option("true")
    form.locator("[data-field='matchWholeWords']").select_option("false")
    form.locator("[data-field='excludeRecursion']").check()
    form.locator("[data-field='preventRecursion']").check()
    form.locator("input[type='checkbox'][data-field='delayUntilRecursion']").check()
    form.locator("[data-field='delayUntilRecursion'][data-role='level']").fill("2")
    _fill(page, form, "sticky", "2")
    _fill(page, form, "cooldown", "3")
    _fill(page, form, "delay", "1")
    form.locator("[data-field='matchScenario']").check()
    form.locator("[data-field='triggers'][value='normal']").check()
    _fill(page, form, "content", "渡口边的茶馆，雨夜只剩一盏灯。")
    screenshot(page, "lore-editor-1280")
    form.locator(".wi-save").click()
    said(page, "条目已保存")

    expected = copy.deepcopy(book)
    expected["entries"]["0"].update({  # type: ignore[index]
        "key": ["茶馆", "茶楼", "/雨(夜|天)/i"], "keysecondary": ["阿沅，老板娘"], "selectiveLogic": 3,
        "position": 4, "role": 1, "depth": 2, "order": 42, "probability": 35, "group": "天气",
        "groupOverride": True, "groupWeight": 60, "useGroupScoring": True, "scanDepth": 3, "caseSensitive": True,
        "matchWholeWords": False, "excludeRecursion": True, "preventRecursion": True, "delayUntilRecursion": 2,
        "sticky": 2, "cooldown": 3, "delay": 1, "matchScenario": True, "triggers": ["normal"],
        "content": "渡口边的茶馆，雨夜只剩一盏灯。",
    })  # fmt: skip
    assert path.read_text(encoding="utf-8") == json.dumps(expected, ensure_ascii=False, indent=4)

    # The switch in the row writes `disable`, and nothing else.
    page.locator(".wi-entry[data-uid='1'] .entry-switch").click()
    said(page, "已保存开关")
    expected["entries"]["1"]["disable"] = True  # type: ignore[index]
    assert json.loads(path.read_text(encoding="utf-8")) == expected

    # A bad value is one readable line and the file stays as it was.
    before = path.read_bytes()
    page.locator(".wi-entry[data-uid='0'] summary .wi-title").click()
    form = page.locator(".wi-entry[data-uid='0'] form.wi-form")
    _fill(page, form, "order", "")
    form.locator(".wi-save").click()
    said(page, "order", error=True)
    assert path.read_bytes() == before

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    wait_ready(page)
    page.locator(".wi-entry[data-uid='0'] summary .wi-title").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "lore-editor-390")


def test_books_are_created_mounted_filled_and_deleted_into_the_vault(served: Served, page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(f"{served.url}/lore")
    wait_ready(page)
    page.fill("#new-book-name", "补充：江湖门派")
    page.click("#new-book")
    said(page, "已新建世界书")
    name = "补充：江湖门派"
    path = served.home.lorebooks_dir / f"{name}.json"
    assert path.read_text(encoding="utf-8") == '{\n    "entries": {}\n}'

    page.locator("#mounts input[data-card='青梧']").check()
    said(page, "已挂到")
    assert name in open_card(served.home, "青梧").lorebooks()

    page.click("#new-entry")
    said(page, "已新建条目")
    form = page.locator(".wi-entry[data-uid='0'] form.wi-form")
    form.locator("[data-field='comment']").fill("青城派")
    form.locator("[data-field='key']").fill("青城, 剑阵")
    form.locator("[data-field='strategy']").select_option("constant")
    form.locator("[data-field='content']").fill("青城派剑阵以七人为一组。")
    form.locator(".wi-save").click()
    said(page, "条目已保存")
    entry = json.loads(path.read_text(encoding="utf-8"))["entries"]["0"]
    assert entry["comment"] == "青城派" and entry["key"] == ["青城", "剑阵"] and entry["constant"] is True
    assert entry["uid"] == 0 and entry["order"] == 100 and entry["selective"] is True  # the editor's template
    assert page.locator(".wi-entry.constant[data-uid='0']").count() == 1
    screenshot(page, "lore-new-book-1280")

    page.click("#new-entry")
    said(page, "已新建条目")
    page.locator(".wi-entry[data-uid='1'] .wi-delete").click()
    said(page, "已删除条目")
    assert list(json.loads(path.read_text(encoding="utf-8"))["entries"]) == ["0"]

    page.click("#delete-book")
    said(page, "已删除「")
    assert not path.exists()
    assert name not in open_card(served.home, "青梧").lorebooks()
    vault = Vault(served.home)
    snapshot = vault.snapshots()[0]
    assert b"\xe9\x9d\x92\xe5\x9f\x8e" in vault.read_file(snapshot.id, f"library/lorebooks/{name}.json")  # 青城
    page.locator(f"#book-list li[data-book='{name}']").wait_for(state="detached")
