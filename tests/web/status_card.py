"""A Chinese MVU card with a status bar, as the Chinese cards have them: an ``[initvar]`` entry seeds
林晚's variables, MVU appends ``<StatusPlaceHolderImpl/>`` to each reply, and the card's display regex
turns it into a fenced front-end document whose script does what real status bars do —
``waitGlobalInitialized('Mvu')``, ``Mvu.getMvuData({type: 'message', message_id:
getCurrentMessageId()})``, ``eventOn(Mvu.events.VARIABLE_UPDATE_ENDED, …)``, ``getChatMessages``, jQuery
and lodash without loading them, Vue (the frame's, from its npm package) and Font Awesome from CDNs —
and tries to reach the page and to write (its card's scripts were never allowed: a bar only reads)."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from web_harness import LiveServer, Served

from peargarden.formats import card_to_png, read_card
from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator, Page

CARD = "林晚"

# The card's status bar (its author's code).  #probe records what reaching the page gave.
STATUS_BAR = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<script src="https://testingcf.jsdelivr.net/npm/jquery/dist/jquery.min.js"></script>
<script src="https://cdn.jsdelivr.net/npm/vue@3/dist/vue.global.prod.js"></script>
<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.4.0/css/all.min.css">
<style>.bar{padding:6px 10px;background:#f6efe4;border-radius:6px;color:#4a3b2a}.bar span{margin-right:1em}</style>
</head><body>
<div class="bar"><span id="好感">读取中</span><span id="心情"></span><span id="最新"></span><span id="楼层"></span>
<span id="事件"></span><span id="正文"></span></div>
<div id="probe"></div><div id="收到"></div><div id="库"></div>
<script>
(async () => {
  const own = getCurrentMessageId();
  function draw() {
    const data = Mvu.getMvuData({ type: 'message', message_id: own });
    $('#好感').text('好感度：' + _.get(data, 'stat_data.林晚.好感度'));
    $('#心情').text('心情：' + _.get(data, 'stat_data.林晚.心情'));
    const latest = getVariables({ type: 'message', message_id: -1 });
    $('#最新').text('最新好感：' + _.get(latest, 'stat_data.林晚.好感度'));
    $('#楼层').text('楼层：' + own + '/' + getLastMessageId());
    $('#正文').text('本楼：' + getChatMessages(own)[0].message.slice(0, 6));
  }
  $('#库').text(typeof Vue === 'undefined' ? 'Vue 没有加载' : 'Vue 加载了');
  await waitGlobalInitialized('Mvu');
  draw();
  eventOn(Mvu.events.VARIABLE_UPDATE_ENDED, draw);
  eventOn(tavern_events.MESSAGE_RECEIVED, (id) => $('#事件').text('收到第' + id + '楼'));
  if (own !== 2) return;  // the first reply's bar tries the page (once)
  window.addEventListener('message', (event) => $('#收到').text('收到了：' + JSON.stringify(event.data)));
  const tries = [];
  const page = window['top'];  // the real page (the frame's host stands in for parent and top)
  try { tries.push('document:' + page.document.title); } catch (error) { tries.push('document:' + error.name); }
  tries.push(parent.document === document ? 'host:own-document' : 'host:page-document');
  try { tries.push('cookie:' + document.cookie); } catch (error) { tries.push('cookie:' + error.name); }
  try { page.location.href = '/settings'; tries.push('top:tried'); } catch (error) { tries.push('top:' + error.name); }
  try { top.location.href = '/settings'; tries.push('host:tried'); } catch (error) { tries.push('host:' + error.name); }
  try { await fetch('/api/cards'); tries.push('fetch:ok'); } catch (error) { tries.push('fetch:' + error.name); }
  try { replaceVariables({ 林晚: {} }, { type: 'chat' }); tries.push('write:ok'); }
  catch (error) { tries.push('write:refused'); }
  try { updateVariablesWith((v) => _.set(v, 'stat_data.林晚.好感度', 99), { type: 'message', message_id: own });
    tries.push('update:ok'); } catch (error) { tries.push('update:refused'); }
  parent.postMessage({ pear: 'frame', kind: 'send', text: '替你说话' }, '*');
  parent.postMessage({ pear: 'frame', kind: 'hello', nonce: '猜的' }, '*');
  parent.postMessage('随便什么', '*');
  $('#probe').text(tries.join(' '));
})();
</script>
</body></html>"""

INITVAR = "林晚:\n  好感度: 10\n  心情: 平静\n金钱: 100\n"


def reply(text: str, updates: str) -> str:
    """A model reply with MVU's update block."""
    return f"{text}\n<UpdateVariable>\n{updates}\n</UpdateVariable>"


def card_data(status_bar: str = STATUS_BAR, name: str = CARD, initvar: str = INITVAR) -> dict[str, object]:
    scripts = [
        {"scriptName": "状态栏", "findRegex": "/<StatusPlaceHolderImpl\\/>/g",
         "replaceString": f"```html\n{status_bar}\n```", "placement": [2], "markdownOnly": True, "disabled": False},
        {"scriptName": "隐藏变量更新", "findRegex": "/<UpdateVariable>[\\s\\S]*?<\\/UpdateVariable>/g",
         "replaceString": "", "placement": [2], "markdownOnly": True, "disabled": False},
    ]  # fmt: skip
    book = {"entries": [{"keys": [], "content": initvar, "comment": "[initvar]变量初始化", "enabled": False,
                         "constant": False, "insertion_order": 100, "extensions": {}}]}  # fmt: skip
    return {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": name, "description": "茶社掌柜林晚，说话慢条斯理。", "first_mes": "林晚抬头：“客官来了？”",
                     "character_book": book, "extensions": {"regex_scripts": scripts}}}  # fmt: skip


def add_status_card(
    home: Home, status_bar: str = STATUS_BAR, name: str = CARD, initvar: str = INITVAR, *, scripts: bool | None = None
) -> None:
    """The card in *home* (as a PNG, like an imported one), its regex allowed (the user's yes), its
    scripts allowed as *scripts* says (``None``: never asked)."""
    data = card_data(status_bar, name, initvar)
    card = read_card(json.dumps(data, ensure_ascii=False).encode("utf-8"), f"{name}.json")
    folder = home.card_dir(name)
    folder.mkdir(parents=True)
    avatar = (home.card_dir("青梧") / "青梧.png").read_bytes()
    (folder / f"{name}.png").write_bytes(card_to_png(card, avatar))
    settings = {"regex_allowed": True} if scripts is None else {"regex_allowed": True, "scripts_allowed": scripts}
    (folder / "卡.json").write_text(json.dumps(settings), encoding="utf-8")


def tavern_config(base_url: str) -> str:
    """The fake model in tavern mode (MVU as SillyTavern + TavernHelper run it)."""
    return (
        'user_name = "旅人"\nmode = "tavern"\ngreeting = true\n\n[story]\nscene_notes = false\n\n'
        '[model]\nprovider = "fake"\nmodel = "fake-model"\nthinking = "off"\n\n'
        f'[providers.fake]\nbase_url = "{base_url}"\napi_key = "sk-test"\n'
    )


@contextmanager
def tavern_served(home: Home) -> Iterator[Served]:
    """*home* served by a live server, in tavern mode on a fake model."""
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(tavern_config(fake.base_url), encoding="utf-8")
        with LiveServer(home) as server:
            yield Served(home, server, fake)


def status_bar(page: Page, index: int) -> Frame:
    """The document of message *index*'s status bar."""
    return frame_of(page.locator(f"#messages li.msg[data-index='{index}'] iframe.status-frame"))


def send(page: Page, text: str, beats: int) -> None:
    """Send *text* from the composer and wait until the page has finished *beats* beats."""
    page.fill("#composer", text)
    page.click("#send")
    page.wait_for_selector(f"body[data-beats='{beats}']")


def page_errors(page: Page) -> list[str]:
    """The page's errors from now on: uncaught ones and console errors (every frame's too)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
    return errors


def message_stat(base_url: str, card: str, chat_id: str, message: int) -> dict[str, Any]:
    """The chat's kept ``stat_data`` of *message* (its shown swipe), read from the server."""
    path = f"/api/chats/{urllib.parse.quote(card)}/{chat_id}/variables?message={message}"
    with urllib.request.urlopen(base_url + path, timeout=20) as answer:
        (record,) = json.loads(answer.read())["messages"]
    return dict(record["variables"]["stat_data"])


def frame_of(bar: Locator) -> Frame:
    """The document inside a status bar's frame."""
    handle = bar.element_handle()
    assert handle is not None
    frame = handle.content_frame()
    assert frame is not None
    return frame


def wait_text(frame: Frame, selector: str, text: str) -> None:
    """Wait until the element *selector* of *frame* says *text*."""
    frame.wait_for_function(
        "([selector, text]) => (document.querySelector(selector)?.textContent || '').includes(text)",
        arg=[selector, text],
    )
