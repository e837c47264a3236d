"""Issue 45's acceptance with a real MVU card in Chromium: 房东模拟器 (../shared/fixtures/thirdparty/
script-cards; skipped without it, nothing of it copied here), imported through the real import path with
its scripts and regex allowed, played on the fake model with replies written the way this card asks
for them (an ``<UpdateVariable>`` block with ``<Analysis>`` and a ``<JSONPatch>`` in its own variable
names: ``/世界/时间``, ``/世界/日期``, ``/公寓/房间列表/…``).

Two beats, a swipe and a reload; after each, what is drawn inside the card's own frames — not our page's
state:

* the card's message bar (its regex 「完整变量更新（必开）」 turns each reply's update block into a
  "Landlord Variable Update" window) shows the values that reply set;
* its apartment panel (the script 「公寓（开）」, opened by its floating button, reads
  ``Mvu.getMvuData`` of the latest reply) shows the time, the date and the room the beats set;
* its phone's news app (the script 「小手机主程序」) reads the date through ``window.parent.Mvu`` and sees
  the day change (its own log line), and the phone's screen — a frame the script makes in its own
  frame, given the frame world by ``nested_frames.js`` — shows the clock it reads every 3 s from
  ``window.parent.Mvu``: the seed's time, then each beat's, the swiped reply's, after the reload.

Page errors are counted (``pageerror`` and every frame's console errors) and must be 0; what the frames'
CSP refuses (the card's pictures and web fonts: nothing is loaded from the network here) is the
browser's own console line, allowed only when the page says it once in a line of its own.

StageDog's 「变量更新」 card is the classic MVU display regexes (no variables or bar of its own): each
reply's update block, written MVU's classic way (``_.set('路径', 旧, 新);//原因``), folded into its
「👾变量更新」 window, through the same two beats, swipe and reload.

kai's template card plays in ``test_web_real_kai_bar.py`` (its Vue bar's libraries come from npm
packages).  Not played here, with the measured reason (docs/variables.md, "Real cards, tested"):
diealone's template card (its bar is a whole page loaded from ``testingcf.jsdelivr.net``)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from real_card_home import LANDLORD, STAGEDOG, STAGEDOG_CARD, real_card_served
from real_card_home import LANDLORD_CARD as CARD
from status_card import frame_of
from web_harness import Served, beats_done, open_new_chat, wait_ready

from peargarden.testing.fake_openai import text_reply

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Frame, Page

# The card's own line when its phone's news app, having seen the date change, has no API key of its own
# (it calls a model itself, not through the host): SillyTavern logs the same until the player sets one.
NO_PHONE_KEY = "[新闻系统] 生成失败: Error: 请先在小手机设置中配置API Key"
# The browser's line for what a frame's CSP refused: the refusal working, said by the page in its own line.
CSP_LINE = re.compile(r"^Loading the (?:image|stylesheet|font) '(https?://[^/']+)[^']*' violates the following Content")


def patch_reply(story: str, analysis: str, ops: list[dict[str, object]]) -> str:
    """A reply as this card's 「变量输出格式」 asks: the story, then the analysis and a JSON patch."""
    patch = json.dumps(ops, ensure_ascii=False, indent=2)
    return (f"{story}\n<UpdateVariable>\n<Analysis>\n{analysis}\n</Analysis>\n<JSONPatch>\n{patch}\n</JSONPatch>\n"
            "</UpdateVariable>")  # fmt: skip


ROOM = {"类型": "卧室", "名称": "三楼房间一", "楼层": "三楼", "位置": "1-3", "住户": "无", "描述": "刚装修好的空卧室"}
FIRST = patch_reply("你推开公寓的大门，在三楼隔出一间新卧室。", "- Time: 2 hours passed, now 17:44\n- New room on 三楼",
                    [{"op": "replace", "path": "/世界/时间", "value": "17:44"},
                     {"op": "insert", "path": "/公寓/房间列表/三楼房间一", "value": ROOM}])  # fmt: skip
SECOND = patch_reply("第二天一早，你在客厅煮咖啡。", "- Time: next day morning\n- Date change: 9月25日, 星期二",
                     [{"op": "replace", "path": "/世界/日期", "value": "9月25日"},
                      {"op": "replace", "path": "/世界/星期", "value": "星期二"},
                      {"op": "replace", "path": "/世界/时间", "value": "08:00"}])  # fmt: skip
SWIPED = patch_reply("夜深了，你还在核对账本。", "- Time: 4 hours passed, now 21:30",
                     [{"op": "replace", "path": "/世界/时间", "value": "21:30"}])  # fmt: skip


@pytest.fixture(scope="module")
def landlord_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from real_card_served(tmp_path_factory, LANDLORD, "landlord-bar-home")


def _bar(page: Page, index: int) -> Frame:
    """The update window the card's regex drew in reply *index* (a frame of its own)."""
    return frame_of(page.locator(f"#messages li.msg[data-index='{index}'] iframe.card-html"))


def _shows(page: Page, read: Callable[[], str], *values: str) -> None:
    """Wait until what *read* reads in a frame holds *values* (a swipe or a reload draws frames anew)."""
    from playwright.sync_api import Error as PlaywrightError

    shown = ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            shown = read()
        except PlaywrightError:  # the frame was drawn anew meanwhile
            shown = ""
        if all(value in shown for value in values):
            return
        page.wait_for_timeout(200)
    raise AssertionError((values, shown))


def _bar_says(page: Page, index: int, *values: str) -> None:
    """Reply *index*'s update window shows *values*."""

    def read() -> str:
        bar = _bar(page, index)
        bar.wait_for_selector(".landlord-title", timeout=5_000)
        return bar.locator(".code-block code").text_content(timeout=5_000) or ""

    _shows(page, read, *values)


def _apartment(page: Page) -> Frame:
    return frame_of(page.locator("#script-frames iframe[title='脚本：公寓（开）']"))


def _apartment_says(page: Page, clock: str, date: str, room: str) -> None:
    """Open the apartment panel with its floating button (a press and release without a drag, as its
    script listens for) and read what it drew from ``Mvu.getMvuData``; close it again."""
    panel = _apartment(page)
    panel.wait_for_selector("#apartment-toggle-btn")
    toggle = "document.getElementById('apartment-main-panel').classList.contains('active')"
    assert not panel.evaluate(toggle)
    panel.locator("#apartment-toggle-btn").dispatch_event("mousedown")
    panel.evaluate("document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}))")
    panel.wait_for_function(toggle)
    panel.wait_for_function("(t) => document.getElementById('time-display').textContent === t", arg=clock)
    assert panel.locator("#date-display").text_content() == date
    assert room in (panel.locator("#apartment-canvas").text_content() or "")
    panel.locator("#apartment-toggle-btn").dispatch_event("mousedown")
    panel.evaluate("document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}))")
    panel.wait_for_function(f"!{toggle}")


def _phone_clock_says(page: Page, clock: str) -> None:
    """The phone's screen (a frame the script 「小手机主程序」 makes in its own frame) shows *clock*, which
    it reads every 3 s from ``window.parent.Mvu``."""

    def read() -> str:
        phone = frame_of(page.locator("#script-frames iframe[title='脚本：小手机主程序']"))
        screen = frame_of(phone.locator("#tavern-phone-system-iframe"))
        return screen.locator("#clock").text_content(timeout=5_000) or ""

    _shows(page, read, clock)


# A beat of a real script card: its 23 frames hear the beat's events before its request and after its
# reply (2.4 s a beat alone at load 16; one beat of a full suite at load 25 passed 30 s).
REAL_BEAT_MS = 120_000


def _send(page: Page, text: str, beats: int) -> None:
    page.fill("#composer", text)
    page.click("#send")
    beats_done(page, beats, REAL_BEAT_MS)


def test_landlords_bar_and_apartment_show_what_two_beats_a_swipe_and_a_reload_set(
    landlord_served: Served, page: Page
) -> None:
    errors: list[str] = []
    refused_hosts: set[str] = set()
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))

    logged: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type != "error":
            logged.append(message.text)
            return
        refused = CSP_LINE.match(message.text)
        if refused:
            refused_hosts.add(refused.group(1).split("//")[1])
        elif not message.text.startswith(NO_PHONE_KEY):
            errors.append(f"console: {message.text}")

    page.on("console", console)
    landlord_served.fake.script([text_reply(FIRST), text_reply(SECOND), text_reply(SWIPED)])
    open_new_chat(page, landlord_served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready]", timeout=120_000)
    greeting = "神启元年 9月24日 星期一"
    _apartment_says(page, "15:44", greeting, "客厅")  # the [InitVar] seed, before any beat
    _phone_clock_says(page, "15:44")

    _send(page, "去看看公寓。", 1)
    _bar_says(page, 2, '"/世界/时间"', '"17:44"', "三楼房间一")
    _apartment_says(page, "17:44", greeting, "三楼房间一")
    _phone_clock_says(page, "17:44")

    _send(page, "睡一觉，明早再说。", 2)
    _bar_says(page, 4, '"9月25日"', '"星期二"', '"08:00"')
    _bar_says(page, 2, '"17:44"')  # each reply's own window
    _apartment_says(page, "08:00", "神启元年 9月25日 星期二", "三楼房间一")
    # The phone read the new date through window.parent.Mvu (its news app follows the game's days).
    deadline = time.monotonic() + 30
    while not any(line.startswith("[新闻系统] 日期变化: 9月24日 -> 9月25日") for line in logged):
        assert time.monotonic() < deadline, [line for line in logged if "新闻" in line]
        page.wait_for_timeout(200)

    page.locator("#messages .swipe-next").click()
    beats_done(page, 3, REAL_BEAT_MS)
    _bar_says(page, 4, '"21:30"')
    _apartment_says(page, "21:30", greeting, "三楼房间一")
    _phone_clock_says(page, "21:30")

    page.reload()
    wait_ready(page)
    page.wait_for_selector("body[data-scripts-ready]", timeout=120_000)
    _bar_says(page, 2, '"17:44"')
    _bar_says(page, 4, '"21:30"')
    _apartment_says(page, "21:30", greeting, "三楼房间一")
    _phone_clock_says(page, "21:30")

    notes = page.evaluate("document.getElementById('script-panel')?.textContent || ''")
    assert "没有响应" not in notes, notes  # no frame taken for frozen and started again
    # Each host the frames' CSP refused is said by the page (the script panel, the window's own line),
    # not only in the browser's console: the window's web font, the apps' icons.
    said = notes + "".join(_bar(page, index).locator(".pear-blocked").text_content() or "" for index in (2, 4))
    assert "fonts.loli.net" in said and "api.iconify.design" in said, said
    for host in refused_hosts:
        assert host in said, (host, said)
    assert errors == [], errors


@pytest.fixture(scope="module")
def stagedog_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from real_card_served(tmp_path_factory, STAGEDOG, "stagedog-home")


def _fold_says(page: Page, nth: int, *values: str) -> None:
    """The *nth* reply's 「👾变量更新」 window (the card's regex, a frame of its own) holds *values*."""

    def read() -> str:
        fold = frame_of(page.locator("#messages li.msg.assistant").nth(nth).locator("iframe.card-html"))
        fold.wait_for_selector("details.thinking-description summary", timeout=5_000)
        return fold.locator("details.thinking-description > div").text_content(timeout=5_000) or ""

    _shows(page, read, *values)


def test_stagedogs_update_window_folds_what_each_reply_set(stagedog_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    updates = ["_.set('小梨.好感度', 10, 15);//她笑了", "_.set('小梨.好感度', 15, 22);//又笑了",
               "_.set('小梨.好感度', 15, 12);//她生气了"]  # fmt: skip
    stagedog_served.fake.script(
        [text_reply(f"小梨看着你。\n<UpdateVariable>\n{update}\n</UpdateVariable>") for update in updates]
    )
    open_new_chat(page, stagedog_served.url, STAGEDOG_CARD)
    _send(page, "你好。", 1)
    _fold_says(page, -1, "'小梨.好感度', 10, 15", "她笑了")
    _send(page, "再见。", 2)
    _fold_says(page, -1, "15, 22", "又笑了")
    _fold_says(page, -2, "10, 15")
    page.locator("#messages .swipe-next").click()
    beats_done(page, 3, REAL_BEAT_MS)
    _fold_says(page, -1, "15, 12", "她生气了")
    page.reload()
    wait_ready(page)
    _fold_says(page, -2, "10, 15")
    _fold_says(page, -1, "15, 12", "她生气了")
    assert errors == [], errors
