"""A card of our own whose status bar is written the way kai's TavernHelper template is (issue 45): a
Vue app on the frame's global ``Vue`` (TavernHelper's frame template loads it; nothing here loads it),
a Pinia store and async-wait-until imported from ``testingcf.jsdelivr.net`` by the CDN addresses the
template's build uses, a "schema" that normalises the message's variables (好感度 kept within 0–100 and
a derived ``$阶段``) and writes them back with ``updateVariablesWith`` when that changed them, polled
as the template's ``useIntervalFn`` does.  Its bar also runs a bare ``import 'vue'``.

The card's scripts are allowed or never answered (``卡.json``); no host is ever answered for it: the libraries
come from the npm packages (``app/play/packaged_modules.py``)."""

from __future__ import annotations

from status_card import add_status_card

from peargarden.workspace.home import Home

CARD = "白梨"
CLOSED_CARD = "素梨"

VUE_BAR = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"></head><body>
<div id="app">读取中…</div>
<script type="module">
import { waitUntil } from 'https://testingcf.jsdelivr.net/npm/async-wait-until/+esm';
import { createPinia, defineStore } from 'https://testingcf.jsdelivr.net/npm/pinia/+esm';
import { version as bareVersion } from 'vue';
const { createApp, ref, computed } = Vue;
const option = { type: 'message', message_id: getCurrentMessageId() };
function normal(raw) {
  const 好感度 = _.clamp(Number(_.get(raw, '林晚.好感度', 0)), 0, 100);
  return { ...raw, 林晚: { ..._.get(raw, '林晚', {}), 好感度, $阶段: 好感度 >= 80 ? '亲密' : '相识' } };
}
const useStat = defineStore('stat', () => {
  const data = ref(normal(_.get(getVariables(option), 'stat_data', {})));
  function sync() {
    const raw = _.get(getVariables(option), 'stat_data', {});
    const fixed = normal(raw);
    if (!_.isEqual(data.value, fixed)) data.value = fixed;
    if (!_.isEqual(raw, fixed)) {
      try {
        updateVariablesWith((variables) => _.set(variables, 'stat_data', fixed), option);
        document.body.dataset.wrote = String(Number(document.body.dataset.wrote || 0) + 1);
      } catch (error) {
        document.body.dataset.refused = error.message;
      }
    }
  }
  return { data, sync };
});
$(async () => {
  await waitGlobalInitialized('Mvu');
  await waitUntil(() => _.has(getVariables(option), 'stat_data'));
  const app = createApp({
    setup() {
      const store = useStat();
      store.sync();
      setInterval(() => store.sync(), 300);
      const 好感 = computed(() => store.data.林晚.好感度);
      return { store, 好感, same: bareVersion === Vue.version };
    },
    template: '<span id="好感">好感度：{{ 好感 }}</span> <span id="阶段">{{ store.data.林晚.$阶段 }}</span>'
      + ' <span id="同一">{{ same ? "同一个 Vue" : "两个 Vue" }}</span>',
  });
  app.use(createPinia()).mount('#app');
});
</script>
</body></html>"""


def add_vue_card(home: Home, name: str = CARD, *, scripts_allowed: bool | None = True) -> None:
    """The card in *home* as an imported PNG, its regex allowed, its scripts allowed or never answered
    (``None``: they do not run, MVU does; a "no" turns MVU off too, and with it the bar)."""
    add_status_card(home, VUE_BAR, name, scripts=scripts_allowed)


def packages_installed() -> bool:
    """The frames' npm packages are installed (scripts/setup.sh runs npm ci)."""
    from peargarden.app.play.packaged_modules import node_modules

    return all((node_modules() / name / "package.json").is_file() for name in ("vue", "pinia", "async-wait-until"))


__all__ = ["CARD", "CLOSED_CARD", "VUE_BAR", "add_vue_card", "packages_installed"]
