"""A Chinese MVU card whose status bar reaches the host the way TavernHelper-era bars do (issue 45):
``function host() { if (window.parent && window.parent !== window) return window.parent; … }`` and
``getMvu = () => host().Mvu || window.Mvu``, ``window.top.SillyTavern.getContext()``, ``parent.$`` and
``parent._``, ``top.toastr``, ``YAML`` and ``z`` without loading them, ``parent.document`` — and one
call of a TavernHelper function that does not exist, which must fail with one line, counted.

The bar draws 房东's funds (``资金``) and mood from the message's variables, and which window it found.
"""

from __future__ import annotations

from status_card import add_status_card

from peargarden.workspace.home import Home

CARD = "房东阿梨"

HOST_BAR = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<style>.bar{padding:6px 10px;background:#eef6f0;border-radius:6px}.bar b{margin-right:1em}</style>
</head><body>
<div class="bar"><b id="资金">读取中…</b><b id="心情"></b><b id="窗口"></b><b id="名字"></b><b id="顶层"></b>
<b id="库"></b><b id="未知"></b></div>
<script>
function host() {
  if (window.parent && window.parent !== window) return window.parent;
  if (window.top && window.top !== window) return window.top;
  return window;
}
const getMvu = () => host().Mvu || window.Mvu;
const $$ = host().$ || window.$;
async function draw() {
  const mvu = getMvu();
  const id = host().getCurrentMessageId ? host().getCurrentMessageId() : getCurrentMessageId();
  const data = mvu.getMvuData({ type: 'message', message_id: id });
  $$('#资金', host().document).text('资金：' + host()._.get(data, 'stat_data.房东.资金'));
  $$('#心情').text('心情：' + _.get(data, 'stat_data.房东.心情'));
}
(async () => {
  document.getElementById('窗口').textContent = (window.parent === window) ? '同一窗口' : '宿主窗口';
  const context = window.top.SillyTavern.getContext();
  document.getElementById('名字').textContent = context.name2 + '/' + context.name1;
  document.getElementById('顶层').textContent = top === parent ? '顶层=宿主' : '顶层≠宿主';
  const parsed = YAML.parse('资金: 1');
  const schema = z.object({ 资金: z.coerce.number() });
  document.getElementById('库').textContent = 'YAML ' + parsed.资金 + ' / zod ' + schema.parse({ 资金: '2' }).资金;
  await host().waitGlobalInitialized('Mvu');
  await draw();
  host().eventOn(getMvu().events.VARIABLE_UPDATE_ENDED, draw);
  try { host().TavernHelper.getTavernHelperSecret(); } catch (error) {
    document.getElementById('未知').textContent = '未知函数：' + error.message.split('（')[0];
  }
  top.toastr.success('状态栏就绪', '房东');
})();
</script>
</body></html>"""

INITVAR = "房东:\n  资金: 30\n  心情: 平静\n"


def add_host_card(home: Home) -> None:
    """The card in *home*, its regex allowed (the user's yes)."""
    add_status_card(home, HOST_BAR, CARD, initvar=INITVAR)
