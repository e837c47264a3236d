"""Remote modules in a card's script frames (issue 45 item 4), in real Chromium against a local fake
CDN (no test reaches the network).  A card's script imports, as real cards do, a jsdelivr-style
``+esm`` bundle by its full address, and that bundle imports its own dependencies by absolute path
(``/npm/格式@1.0.0/+esm``) and zod (the frame's own).  The first time, the page asks once whether the card
may load from that host; after a yes the modules are fetched once, the script draws its panel (found
through ``window.parent``) with the bundle's function and follows a beat.  A second host the user
refuses is one line in the script panel and an error the script catches.  Then the CDN stops: after a
reload the card plays the same code from the data folder, no question asked, no request made."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from script_card import add_script_card, helper_script
from status_card import frame_of, reply, tavern_config, wait_text
from web_harness import LiveServer, Served, beats_done, open_new_chat

from peargarden.testing.fake_cdn import FakeCdn
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

if TYPE_CHECKING:
    from playwright.sync_api import Page

CARD = "远程的阿梨"
TOOL = """import { z } from "/npm/zod@3.23.8/+esm";
import 格式 from "/npm/格式@1.0.0/+esm";
export const 余额行 = (value) => 格式(z.coerce.number().parse(value));
export default { 版本: "1.2.0" };
"""
FORMAT = "export default (n) => '余额 ' + n + ' 元';\n"
OLD_STYLE = "window.旧库 = { 括: (text) => '【' + text + '】' };\n"
STYLE = "#栏 { color: rgb(1, 2, 3); }\n"


def _status_bar(css: str, classic: str, fmt: str) -> str:
    """A bar as the template cards make it (kai's loads pinia from the CDN in an inline module): a
    style sheet and a classic script from the CDN, an inline module importing a +esm bundle."""
    return f"""<html><head>
<link rel="stylesheet" href="{css}">
<script src="{classic}"></script>
<script type="module">
import 格式 from '{fmt}';
const host = () => (window.parent && window.parent !== window ? window.parent : window);
const draw = () => {{
  const data = host().Mvu.getMvuData({{ type: 'message', message_id: getCurrentMessageId() }});
  document.getElementById('栏').textContent = 旧库.括(格式(_.get(data, 'stat_data.房东.资金')));
}};
draw();
eventOn(host().Mvu.events.VARIABLE_UPDATE_ENDED, draw);
</script></head><body><div id="栏">读取中…</div></body></html>"""


def _panel_script(tool_url: str) -> str:
    return f"""import {{ 余额行 }} from '{tool_url}';
const host = () => (window.parent && window.parent !== window ? window.parent : window);
const $page = host().$;
function draw() {{
  const data = host().Mvu.getMvuData({{ type: 'message', message_id: 'latest' }});
  $page('#远程面板', host().document).text(余额行(_.get(data, 'stat_data.房东.资金')));
}}
$page('body', host().document).append('<div id="远程面板">读取中…</div>');
draw();
eventOn(tavern_events.MESSAGE_RECEIVED, draw);
"""


def _refused_script(url: str) -> str:
    return f"""import('{url}').then(
  () => $('body').append('<p id="结果">loaded</p>'),
  (error) => $('body').append($('<p id="结果">').text('拒绝：' + error.message)));
"""


@pytest.fixture(scope="module")
def remote_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, FakeCdn]]:
    home = Home(tmp_path_factory.mktemp("remote-home"))
    seed_home(home)
    with FakeCdn() as cdn:
        tool = cdn.add("/npm/账本工具@1.2.0/+esm", TOOL)
        fmt = cdn.add("/npm/格式@1.0.0/+esm", FORMAT)
        bar = _status_bar(
            cdn.add("/npm/样式@1/样式.css", STYLE, "text/css"), cdn.add("/npm/旧库@1/旧库.js", OLD_STYLE), fmt
        )
        other = cdn.url("/gh/别人/脚本.js").replace("127.0.0.1", "localhost")
        extra = [helper_script("远程面板", _panel_script(tool), [], "0e-remote"),
                 helper_script("别的主机", _refused_script(other), [], "0f-other")]  # fmt: skip
        add_script_card(home, name=CARD, extra=extra, status_bar=bar)
        with FakeOpenAIServer() as fake:
            home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
            with LiveServer(home) as server:
                yield Served(home, server, fake), cdn


def test_remote_modules_are_asked_fetched_once_and_played_offline(
    remote_served: tuple[Served, FakeCdn], page: Page
) -> None:
    served, cdn = remote_served
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    served.fake.script([text_reply(reply("阿梨收下房租。", "_.set('房东.资金', 30, 58);//收租"))])
    open_new_chat(page, served.url, CARD)
    assert sum(cdn.requests.values()) == 0  # nothing before the answer

    # One question per host: yes for the CDN, no for the other host.
    page.locator(f".remote-ask[data-host='{cdn.host}'] .remote-yes").click()
    page.locator(".remote-ask[data-host^='localhost'] .remote-no").click()
    panel = frame_of(page.locator("#script-frames iframe[title='脚本：远程面板']"))
    wait_text(panel, "#远程面板", "余额 30 元")  # the bundle's function, its dependencies, zod
    other = frame_of(page.locator("#script-frames iframe[title='脚本：别的主机']"))
    wait_text(other, "#结果", "拒绝：")
    assert "不从 localhost" in (other.locator("#结果").text_content() or "")
    page.wait_for_function("(document.getElementById('script-panel')?.textContent || '').includes('别人/脚本.js')")
    assert cdn.requests == {"/npm/账本工具@1.2.0/+esm": 1, "/npm/格式@1.0.0/+esm": 1}  # zod is the frame's

    page.fill("#composer", "这个月的房租。")
    page.click("#send")
    beats_done(page, 1)
    wait_text(panel, "#远程面板", "余额 58 元")
    # The reply's status bar: its style sheet, classic script and module from the same host.
    bar = frame_of(page.locator("#messages iframe.status-frame").last)
    wait_text(bar, "#栏", "【余额 58 元】")
    assert bar.locator("#栏").evaluate("(node) => getComputedStyle(node).color") == "rgb(1, 2, 3)"
    loaded = {
        "/npm/账本工具@1.2.0/+esm": 1,
        "/npm/格式@1.0.0/+esm": 1,
        "/npm/样式@1/样式.css": 1,
        "/npm/旧库@1/旧库.js": 1,
    }
    assert cdn.requests == loaded

    settings = json.loads((served.home.card_dir(CARD) / "卡.json").read_text(encoding="utf-8"))
    assert settings["remote_hosts"] == {cdn.host: True, cdn.host.replace("127.0.0.1", "localhost"): False}
    assert sorted(settings["remote_modules"]) == sorted(cdn.url(path) for path in loaded)

    # Offline: the same code from the data folder, no question, no request.
    cdn.stop()
    page.reload()
    page.wait_for_selector("body[data-scripts-ready]")
    panel = frame_of(page.locator("#script-frames iframe[title='脚本：远程面板']"))
    wait_text(panel, "#远程面板", "余额 58 元")
    wait_text(frame_of(page.locator("#messages iframe.status-frame").last), "#栏", "【余额 58 元】")
    assert page.locator(".remote-ask").count() == 0
    assert cdn.requests == loaded
    assert errors == []
