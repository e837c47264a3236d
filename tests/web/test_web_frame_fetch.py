"""What a card's frames fetch themselves (issue 45), in real Chromium against a local fake CDN (no test
reaches the network).  The card is written the way diealone's template card is: its status bar is
only ``$('body').load(url)`` of a page on the CDN, and that page brings a style sheet and a classic
script by relative address, reads the variables through ``window.parent`` and fetches its own
relative ``配置.json``; a script of the card reads with ``$.get`` and an ``XMLHttpRequest``.  Both go
through the card's host allowance as remote modules do: one question, each address fetched once, the
same text after a reload with the CDN stopped.  A POST to the web (a phone calling a model's API with
the player's key, as 房东模拟器's does) is refused with one line and sends nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.error import HTTPError
from urllib.parse import quote

import pytest
from script_card import add_script_card, helper_script
from status_card import frame_of, reply, tavern_served, wait_text
from web_harness import Served, beats_done, open_new_chat, post_json

from peargarden.testing.fake_cdn import FakeCdn
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "抓取的阿梨"
PAGE_PATH = "/gh/作者/卡模板/dist/界面/状态栏/index.html"
PAGE = """<head><style>#栏 { font-weight: 700; }</style><link rel="stylesheet" href="./界面.css"></head>
<body><div id="栏">读取中…</div><p id="配置"></p><p id="发送"></p>
<script src="../公用/格式.js"></script>
<script>
(async () => {
  const host = () => (window.parent && window.parent !== window ? window.parent : window);
  const draw = () => {
    const data = host().Mvu.getMvuData({ type: 'message', message_id: getCurrentMessageId() });
    $('#栏').text(格式化(_.get(data, 'stat_data.房东.资金')));
  };
  draw();
  eventOn(host().Mvu.events.VARIABLE_UPDATE_ENDED, draw);
  const 配置 = await (await fetch('./配置.json')).json();
  $('#配置').text('称呼：' + 配置.称呼);
  try {
    await fetch('https://api.example.com/v1/chat/completions', { method: 'POST', body: '{"key": "sk-玩家的"}' });
    $('#发送').text('发出去了');
  } catch (error) {
    $('#发送').text('未发送：' + error.message);
  }
})();
</script></body>"""
FORMAT = "window.格式化 = (n) => '资金 ' + n + ' 元';\n"
STYLE = "#栏 { color: rgb(4, 5, 6); }\n"
SETTINGS = '{"称呼": "房东大人"}'


def _bar(url: str) -> str:
    # diealone's whole bar: the page's address, loaded into the frame's body.
    return f"<body>\n<script>\n$('body').load('{url}')\n</script>\n</body>"


def _reader(tenants: str, notice: str) -> str:
    return f"""
$.get('{tenants}').then((data) => $('body').append($('<p id="租客">').text('租客：' + data.租客.join('、'))));
const request = new XMLHttpRequest();
request.open('GET', '{notice}');
request.onload = () => $('body').append($('<p id="公告">').text(request.status + ' ' + request.responseText));
request.send();
$.ajax({{ url: 'https://api.example.com/v1/chat/completions', method: 'POST', data: '{{}}' }})
  .fail((xhr, status) => $('body').append($('<p id="电话">').text('电话：' + status)));
"""


@pytest.fixture(scope="module")
def fetch_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, FakeCdn]]:
    home = Home(tmp_path_factory.mktemp("fetch-home"))
    seed_home(home)
    with FakeCdn() as cdn:
        page = cdn.add(PAGE_PATH, PAGE, "text/html; charset=utf-8")
        cdn.add("/gh/作者/卡模板/dist/界面/状态栏/界面.css", STYLE, "text/css")
        cdn.add("/gh/作者/卡模板/dist/界面/公用/格式.js", FORMAT)
        cdn.add("/gh/作者/卡模板/dist/界面/状态栏/配置.json", SETTINGS, "application/json")
        tenants = cdn.add("/gh/作者/卡模板/dist/数据/租客.json", '{"租客": ["小周", "阿青"]}', "application/json")
        notice = cdn.add("/gh/作者/卡模板/dist/数据/公告.txt", "本周六停水", "text/plain; charset=utf-8")
        add_script_card(home, name=CARD, extra=[helper_script("读网", _reader(tenants, notice), [], "0e-fetch")],
                        status_bar=_bar(page))  # fmt: skip
        with tavern_served(home) as served:
            yield served, cdn


def test_a_frame_reads_the_web_through_the_cards_allowance_once_and_offline_after(
    fetch_served: tuple[Served, FakeCdn], page: Page
) -> None:
    served, cdn = fetch_served
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_new_chat(page, served.url, CARD)
    assert sum(cdn.requests.values()) == 0  # nothing before the answer

    # The question comes once the reader's frame has started, after the card's other scripts (each
    # frame loads jQuery, lodash, YAML and zod): at a load of 25 on two cores that took over 30 s.
    page.locator(f".remote-ask[data-host='{cdn.host}'] .remote-yes").click(timeout=120_000)
    reader = frame_of(page.locator("#script-frames iframe[title='脚本：读网']"))
    wait_text(reader, "#租客", "租客：小周、阿青")  # $.get, its JSON parsed by jQuery
    wait_text(reader, "#公告", "200 本周六停水")  # an XMLHttpRequest
    wait_text(reader, "#电话", "电话：error")  # a POST to the web: refused, nothing sent
    assert page.locator(".remote-ask").count() == 0  # no question for the API's host: it is never asked

    served.fake.script([text_reply(reply("阿梨收下房租。", "_.set('房东.资金', 30, 58);//收租"))])
    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    bar = frame_of(page.locator("#messages iframe.status-frame").last)
    wait_text(bar, "#栏", "资金 58 元")  # the page's classic script, its inline script, window.parent
    assert bar.locator("#栏").evaluate("(node) => getComputedStyle(node).color") == "rgb(4, 5, 6)"
    wait_text(bar, "#配置", "称呼：房东大人")  # its own relative address
    wait_text(bar, "#发送", "未发送：不向网络发送 POST（api.example.com）")
    panel = "(document.getElementById('script-panel')?.textContent || '')"
    page.wait_for_function(f"{panel}.includes('不向网络发送 POST（api.example.com）')")
    fetched = {PAGE_PATH: 1, "/gh/作者/卡模板/dist/界面/状态栏/界面.css": 1,
               "/gh/作者/卡模板/dist/界面/公用/格式.js": 1, "/gh/作者/卡模板/dist/界面/状态栏/配置.json": 1,
               "/gh/作者/卡模板/dist/数据/租客.json": 1, "/gh/作者/卡模板/dist/数据/公告.txt": 1}  # fmt: skip
    assert cdn.requests == fetched
    settings = json.loads((served.home.card_dir(CARD) / "卡.json").read_text(encoding="utf-8"))
    assert settings["remote_hosts"] == {cdn.host: True}
    # Pinned by the address as the frame resolved it (URL's percent-encoding of the Chinese path).
    assert sorted(settings["remote_modules"]) == sorted(cdn.url(quote(path)) for path in fetched)

    # Offline: the same texts from the data folder, no question, no request.
    cdn.stop()
    page.reload()
    page.wait_for_selector("body[data-scripts-ready]")
    reader = frame_of(page.locator("#script-frames iframe[title='脚本：读网']"))
    wait_text(reader, "#租客", "租客：小周、阿青")
    wait_text(reader, "#公告", "200 本周六停水")
    bar = frame_of(page.locator("#messages iframe.status-frame").last)
    wait_text(bar, "#栏", "资金 58 元")
    wait_text(bar, "#配置", "称呼：房东大人")
    assert page.locator(".remote-ask").count() == 0
    assert cdn.requests == fetched
    assert errors == []


def test_the_server_never_fetches_its_own_address_for_a_frame(fetch_served: tuple[Served, FakeCdn]) -> None:
    # What a frame could ask for after a yes to a question naming this server: its own API, without
    # the page's token.  Refused before any question, whatever the address's spelling.
    served, _cdn = fetch_served
    port = served.server.port
    for url in (f"http://127.0.0.1:{port}/api/cards", f"http://localhost:{port}/api/cards",
                f"http://[::1]:{port}/api/cards", f"http://0.0.0.0:{port}/api/cards"):  # fmt: skip
        with pytest.raises(HTTPError) as refused:
            post_json(served.url, f"/api/cards/{quote(CARD)}/modules", {"url": url, "module": False})
        assert refused.value.code == 400
        assert "不从梨园自己的地址加载" in refused.value.read().decode("utf-8")
