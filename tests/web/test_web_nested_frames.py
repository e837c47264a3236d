"""Frames a card's script makes inside its own frame (issue 45), in real Chromium: written the way
房东模拟器's phone is (``$('<iframe>')`` appended, then ``srcdoc`` set; the screen's clock read every
few hundred ms from ``window.parent.Mvu.getMvuData({type: 'message', message_id: 'latest'})``, a
``postMessage`` to its parent when it is ready).  The inner frame gets the frame world with its own
copy of the chat's data: its clock shows the variables' value and follows a beat; its parent hears
its message; what only same-origin frames could do (the parent reading the inner document) is a
``SecurityError`` the script catches."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from script_card import add_script_card, helper_script
from status_card import frame_of, reply, tavern_served, wait_text
from web_harness import Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page

CARD = "手机里的阿梨"
SCREEN = """<!DOCTYPE html><html lang="zh-CN"><head><meta charset="UTF-8">
<style>#钟 { color: rgb(7, 8, 9); }</style></head><body><div id="钟">--:--</div><script>
function 走() {
  try {
    var data = window.parent.Mvu.getMvuData({ type: 'message', message_id: 'latest' });
    document.getElementById('钟').textContent = '资金 ' + data.stat_data.房东.资金;
  } catch (e) { document.getElementById('钟').textContent = '出错 ' + e.name; }
}
走();
setInterval(走, 300);
window.parent.postMessage({ type: 'iframe-ready' }, '*');
</script></body></html>"""
PHONE = f"""
const screen = {SCREEN!r};
const $frame = $('<iframe>').attr('id', '手机屏幕').appendTo('body');
$frame.on('load', function () {{
  let reach = '';
  try {{ reach = this.contentWindow.document.title; }} catch (e) {{ reach = e.name; }}
  $('body').append($('<p id="够得着">').text('屏幕文档：' + reach));
}});
window.parent.addEventListener('message', (event) => {{
  if (event.data && event.data.type === 'iframe-ready') $('body').append('<p id="就绪">屏幕就绪</p>');
}});
$frame[0].srcdoc = screen;
"""


def _clock(page: Page, text: str) -> str:
    """Wait until the phone's screen shows *text*; its clock's colour.  The frames are looked up anew at
    each try: on a busy machine the page may start every script frame again (a 10 s silence), and a
    screen found before is then gone."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + 60
    seen = ""
    while time.monotonic() < deadline:
        try:
            phone = frame_of(page.locator("#script-frames iframe[title='脚本：小手机']"))
            clock = frame_of(phone.locator("#手机屏幕")).locator("#钟")
            seen = clock.text_content(timeout=5_000) or ""
            if text in seen:
                return str(clock.evaluate("(node) => getComputedStyle(node).color"))
        except (PlaywrightError, AssertionError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"the phone's screen says {seen!r}, not {text!r}")


@pytest.fixture(scope="module")
def nested_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("nested-home"))
    seed_home(home)
    add_script_card(home, name=CARD, extra=[helper_script("小手机", PHONE, [], "0e-phone")])
    with tavern_served(home) as served:
        yield served


def test_a_frame_a_script_makes_reads_the_variables_through_its_parent(nested_served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The card's own panel draws an icon from the web: the CSP's line, said by the page (test_web_script_frames.py).
    icon = "Loading the image 'https://api.iconify.design/"

    def console(line: ConsoleMessage) -> None:
        if line.type == "error" and not line.text.startswith(icon):
            errors.append(line.text)

    page.on("console", console)
    open_new_chat(page, nested_served.url, CARD)
    phone = frame_of(page.locator("#script-frames iframe[title='脚本：小手机']"))
    wait_text(phone, "#就绪", "屏幕就绪")
    wait_text(phone, "#够得着", "屏幕文档：SecurityError")  # another origin: the script cannot read it
    assert _clock(page, "资金 30") == "rgb(7, 8, 9)"  # its style sheet, as the card wrote it
    nested_served.fake.script([text_reply(reply("阿梨收下房租。", "_.set('房东.资金', 30, 58);//收租"))])
    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    _clock(page, "资金 58")
    notes = page.evaluate("document.getElementById('script-panel')?.textContent || ''")
    assert "iframe" not in notes, notes
    assert errors == [], errors
