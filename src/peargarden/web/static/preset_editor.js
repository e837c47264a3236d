// The preset editor: use a library preset for this card's tavern mode (no declaration), edit its prompt
// texts and order (written into the preset file), and the samplers — in the preset, or pinned on a
// connection in config.toml (the connection's win).  A hint when the library has no preset yet.
import { api, toast } from "./common.js";
import { el, postJson } from "./dom.js";
import { t } from "./i18n.js";

const root = document.getElementById("presets");
const card = encodeURIComponent(root.dataset.card);
const box = document.getElementById("preset-editor");
const LABELS = { temperature: ["温度", "Temperature"], top_p: ["Top P", "Top P"], top_k: ["Top K", "Top K"],
  min_p: ["Min P", "Min P"], top_a: ["Top A", "Top A"], frequency_penalty: ["频率惩罚", "Frequency penalty"],
  presence_penalty: ["存在惩罚", "Presence penalty"], repetition_penalty: ["重复惩罚", "Repetition penalty"],
  openai_max_tokens: ["最大回复 token", "Max response tokens"], max_tokens: ["最大回复 token", "Max response tokens"],
  openai_max_context: ["上下文长度", "Context size"], seed: ["种子", "Seed"] };
let names = [];
let active = "";
let editing = null; // the preset shown: {name, prompts, order, samplers}
let connections = null;

function label(key) { const [zh, en] = LABELS[key] || [key, key]; return t(zh, en); }

function usePanel() {
  const panel = el("div", { class: "panel", id: "use-panel" }, el("h2", { text: t("酒馆模式用哪个预设", "Preset for tavern mode") }),
    el("p", { class: "hint", text: t("不声明、不调用旁路模型：酒馆模式按 SillyTavern 的方式直接使用它。舞台模式会在下一拍声明它。",
      "No declaration, no side model: tavern mode uses it as SillyTavern would. Stage mode declares it at its next beat.") }));
  const select = el("select", { id: "use-preset" }, el("option", { value: "", text: t("（不用预设：SillyTavern 默认值）", "(none: SillyTavern defaults)") }));
  for (const name of names) select.append(el("option", { value: name, text: name }));
  select.value = active;
  const use = el("button", { type: "button", class: "button", id: "use-apply", text: t("用于这张卡", "Use for this card") });
  use.addEventListener("click", async () => {
    try {
      const result = await postJson(`/api/presets/${card}/use`, { preset: select.value });
      active = result.preset;
      toast(active ? t(`这张卡现在用预设「${active}」`, `This card now uses "${active}"`) : t("这张卡不再用预设", "No preset for this card"));
    } catch (error) { toast(error, true); }
  });
  panel.append(el("div", { class: "toolbar" }, select, use));
  return panel;
}

function emptyHint() {
  return el("p", { id: "preset-empty", text: t(
    "资料库里还没有预设。在首页把 SillyTavern 导出的预设 JSON 拖进来，它就会出现在这里。",
    "No presets in the library yet. Drop a preset JSON exported from SillyTavern on the home page and it shows up here.") });
}

async function save(path, body, message) {
  try {
    editing = await postJson(`/api/preset/${encodeURIComponent(editing.name)}/${path}`, body);
    draw();
    toast(message);
  } catch (error) { toast(error, true); }
}

function orderBody(order) { return { order: order.map((e) => ({ identifier: e.identifier, enabled: e.enabled })) }; }

function promptsPanel() {
  const panel = el("div", { class: "panel", id: "prompt-panel" }, el("h2", { text: t("提示词（顺序与内容）", "Prompts (order and text)") }));
  const byId = Object.fromEntries(editing.prompts.map((p) => [p.identifier, p]));
  editing.order.forEach((entry, index) => {
    const prompt = byId[entry.identifier] || { identifier: entry.identifier, name: entry.identifier };
    const row = el("div", { class: `prompt-row${entry.enabled ? "" : " off"}`, "data-id": entry.identifier });
    const toggle = el("input", { type: "checkbox", class: "switch", "aria-label": prompt.name || entry.identifier });
    toggle.checked = entry.enabled;
    toggle.addEventListener("change", () => {
      const order = editing.order.map((e, i) => (i === index ? { ...e, enabled: toggle.checked } : e));
      save("order", orderBody(order), t("已保存开关（写入预设）", "Switch saved (in the preset)"));
    });
    const move = (step) => {
      const order = [...editing.order];
      const [item] = order.splice(index, 1);
      order.splice(index + step, 0, item);
      save("order", orderBody(order), t("已保存顺序（写入预设）", "Order saved (in the preset)"));
    };
    const up = el("button", { type: "button", class: "link up", text: "↑" }); up.disabled = index === 0;
    up.addEventListener("click", () => move(-1));
    const down = el("button", { type: "button", class: "link down", text: "↓" }); down.disabled = index === editing.order.length - 1;
    down.addEventListener("click", () => move(1));
    const head = el("div", { class: "prompt-head" }, toggle, el("span", { class: "entry-name", text: `${prompt.name || entry.identifier}${prompt.marker ? t("（占位）", " (marker)") : ""}` }), up, down);
    row.append(head);
    if (!prompt.marker) {
      const edit = el("button", { type: "button", class: "link prompt-edit", text: t("编辑文字", "Edit text") });
      edit.addEventListener("click", () => {
        if (row.querySelector("textarea")) return;
        const area = el("textarea", { class: "mono prompt-text" });
        area.value = prompt.content || "";
        const role = el("select", { class: "prompt-role" });
        for (const r of ["system", "user", "assistant"]) role.append(el("option", { value: r, text: r }));
        role.value = prompt.role || "system";
        const ok = el("button", { type: "button", class: "button prompt-save", text: t("保存", "Save") });
        ok.addEventListener("click", () => {
          const changes = { content: area.value };
          if (role.value !== (prompt.role || "system")) changes.role = role.value;
          save("prompt", { identifier: entry.identifier, changes }, t("提示词已保存（写入预设）", "Prompt saved (in the preset)"));
        });
        row.append(area, el("div", { class: "toolbar" }, role, ok));
        area.focus();
      });
      head.append(edit);
    }
    panel.append(row);
  });
  return panel;
}

function samplerPanel() {
  const panel = el("div", { class: "panel", id: "sampler-panel" }, el("h2", { text: t("采样参数", "Samplers") }));
  const scope = el("select", { id: "sampler-scope" }, el("option", { value: "preset", text: t(`预设「${editing.name}」`, `Preset "${editing.name}"`) }));
  for (const name of Object.keys(connections.connections)) scope.append(el("option", { value: `connection:${name}`, text: t(`连接「${name}」（优先于预设）`, `Connection "${name}" (wins over presets)`) }));
  const grid = el("div", { class: "samplers" });
  const fill = () => {
    grid.textContent = "";
    const onConnection = scope.value.startsWith("connection:");
    const values = onConnection ? connections.connections[scope.value.slice(11)] : editing.samplers;
    const keys = onConnection ? connections.names : Object.keys(editing.samplers);
    for (const key of keys) {
      const input = el("input", { type: "number", step: "any", "data-key": key, placeholder: t("不设", "unset") });
      input.value = values[key] ?? "";
      grid.append(el("label", {}, el("span", { text: label(key) }), input));
    }
  };
  scope.addEventListener("change", fill);
  fill();
  const apply = el("button", { type: "button", class: "button", id: "sampler-save", text: t("保存采样参数", "Save samplers") });
  apply.addEventListener("click", async () => {
    const values = {};
    for (const input of grid.querySelectorAll("input")) values[input.dataset.key] = input.value.trim() === "" ? null : Number(input.value);
    try {
      if (scope.value === "preset") {
        editing = await postJson(`/api/preset/${encodeURIComponent(editing.name)}/samplers`, { values });
        toast(t("采样参数已保存（写入预设）", "Samplers saved (in the preset)"));
      } else {
        const name = scope.value.slice(11);
        connections = await postJson(`/api/connections/${encodeURIComponent(name)}/samplers`, { values });
        toast(t(`采样参数已保存（连接「${name}」，config.toml）`, `Samplers saved (connection "${name}", config.toml)`));
      }
      fill();
    } catch (error) { toast(error, true); }
  });
  panel.append(el("div", { class: "toolbar" }, scope), grid, el("div", { class: "toolbar" }, apply));
  return panel;
}

function draw() {
  box.textContent = "";
  // The hint goes right under the (empty) preset list, where the user looks for one.
  if (!names.length) { root.querySelector(".toolbar").after(emptyHint()); return; }
  box.append(usePanel());
  const pick = el("select", { id: "edit-preset" });
  for (const name of names) pick.append(el("option", { value: name, text: name }));
  pick.value = editing ? editing.name : names[0];
  pick.addEventListener("change", () => open(pick.value));
  box.append(el("div", { class: "panel" }, el("h2", { text: t("编辑预设文件", "Edit a preset file") }),
    el("p", { class: "hint", text: t("改动写进预设文件本身（其余字段原样保留）。", "Changes go into the preset file itself (every other key kept).") }),
    el("div", { class: "toolbar" }, pick)));
  if (editing) box.append(promptsPanel(), samplerPanel());
}

async function open(name) {
  try { editing = await api(`/api/preset/${encodeURIComponent(name)}`); draw(); } catch (error) { toast(error, true); }
}

async function start() {
  const data = await api(`/api/presets/${card}`);
  names = data.presets;
  active = data.active;
  connections = await api("/api/connections/samplers");
  if (names.length) await open(active && names.includes(active) ? active : names[0]);
  else draw();
  root.dataset.editor = "ready";
}

start().catch((error) => toast(error, true));
