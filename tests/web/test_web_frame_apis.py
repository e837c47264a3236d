"""A card's scripts share globals and call EjsTemplate and Mvu.parseMessage in the page (issue 45), written
the way real cards are — everything reached through ``window.parent``: one script waits for a global
(``waitGlobalInitialized``) that a later one initialises with a class instance (its methods become
async stand-ins calling the defining frame), a script started after both finds it at once, and a
script evaluates a template and parses an MVU update on the server.  Real Chromium, the real page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from script_card import CARD, add_script_card, helper_script
from status_card import frame_of, reply, tavern_served, wait_text
from web_harness import Served, beats_done, open_new_chat

from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Page

HOST = "const host = () => (window.parent && window.parent !== window ? window.parent : window);\n"

WAITS = """
$(async () => {
  await host().waitGlobalInitialized('梨园小店');
  const shop = host().梨园小店;
  const price = await shop.报价('猫');
  const name = await shop.店名();
  const rates = await shop.全部();
  $('body').append(`<div id="看店">${shop.名字}｜${name}｜猫 ${price}｜狗 ${rates.狗}｜${typeof shop.报价}</div>`);
  try { await shop.打烊(); } catch (error) { $('body').append(`<div id="打烊">${error.message}</div>`); }
});
"""

DEFINES = """
class 小店 {
  constructor() { this.名字 = '梨园小店'; this.价格表 = { 猫: 30, 狗: 45 }; }
  async 报价(物种) { await new Promise((resolve) => setTimeout(resolve, 10)); return this.价格表[物种] * 2; }
  店名() { return '「' + this.名字 + '」'; }
  全部() { return { ...this.价格表 }; }
  打烊() { throw new Error('今天打烊'); }
}
host().initializeGlobal('梨园小店', new 小店());
"""

LATE = """
const shop = host().梨园小店;
$('body').append(`<div id="晚到">${shop ? shop.名字 + ' 狗 ' + shop.价格表.狗 : '没有'}</div>`);
"""

TEMPLATES = """
$(async () => {
  const ejs = host().EjsTemplate;
  const env = await ejs.prepareContext({ 房客: '小梨' });
  const text = await ejs.evalTemplate('<%= 房客 %>：资金 <%= variables.stat_data.房东.资金 %>', env);
  const old = host().Mvu.getMvuData({ type: 'message', message_id: 'latest' });
  const parsed = await host().Mvu.parseMessage("_.set('房东.资金', 30, 99);//试算", old);
  const now = host().Mvu.getMvuData({ type: 'message', message_id: 'latest' });
  const mood = ejs.allVariables().stat_data.房东.心情;
  const syntax = await ejs.getSyntaxErrorInfo('<%= 资金');
  let refused = '';
  try { ejs.setFeatures({ enabled: false }); } catch (error) { refused = error.message; }
  $('body').append(`<div id="模板">${text}｜试算 ${parsed.stat_data.房东.资金}｜现在 ${now.stat_data.房东.资金}`
    + `｜${mood}｜${syntax ? '有语法错误' : '无'}｜${refused}</div>`);
});
"""


# A status bar calls no server: its EjsTemplate refuses with one line (it had none: a TypeError).
BAR = """<div id="栏">栏</div><script>
try { window.parent.EjsTemplate.evalTemplate('<%= 1 %>'); } catch (error) {
  document.getElementById('栏').textContent = error.message;
}
</script>"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = Home(tmp_path_factory.mktemp("frame-apis-home"))
    seed_home(home)
    scripts = [("看店", WAITS, "1a-waits"), ("开店", DEFINES, "1b-defines"), ("晚到", LATE, "1c-late"),
               ("模板", TEMPLATES, "1d-templates")]  # fmt: skip
    extra = [helper_script(name, HOST + code, [], ident) for name, code, ident in scripts]
    add_script_card(home, extra=extra, status_bar=BAR)
    with tavern_served(home) as served:
        yield served


def script(page: Page, name: str) -> Frame:
    return frame_of(page.locator(f"#script-frames iframe[title='脚本：{name}']"))


def test_a_global_one_script_initialises_is_seen_by_the_cards_other_scripts(served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_new_chat(page, served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='6']")
    # Waited for before it was defined: relayed by the page; its methods answered by the frame that defined it.
    wait_text(script(page, "看店"), "#看店", "梨园小店｜「梨园小店」｜猫 60｜狗 45｜function")
    wait_text(script(page, "看店"), "#打烊", "今天打烊")  # the defining frame's error, as a rejection
    wait_text(script(page, "晚到"), "#晚到", "梨园小店 狗 45")  # started later: there at once
    assert errors == []


def test_ejs_template_and_parse_message_are_the_servers(served: Served, page: Page) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_new_chat(page, served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='6']")
    shown = "小梨：资金 30｜试算 99｜现在 30｜平静｜有语法错误｜EjsTemplate.setFeatures 在网页脚本里不可用"
    wait_text(script(page, "模板"), "#模板", shown)
    page.wait_for_function(
        "(document.getElementById('script-panel')?.textContent || '').includes('EjsTemplate.setFeatures')"
    )
    assert errors == []


def test_a_status_bars_ejs_template_refuses_with_one_line(served: Served, page: Page) -> None:
    served.fake.script([text_reply(reply("阿梨收下房租。", "_.set('房东.资金', 30, 58);//收租"))])
    open_new_chat(page, served.url, CARD)
    page.wait_for_selector("body[data-scripts-ready='6']")
    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    bar = frame_of(page.locator("#messages li.msg[data-index='2'] iframe.status-frame"))
    wait_text(bar, "#栏", "EjsTemplate.evalTemplate 在状态栏里不可用")
    page.wait_for_function(
        "(document.getElementById('script-panel')?.textContent || '').includes('EjsTemplate.evalTemplate')"
    )
