// Settings: what config.toml says, the connections with a key field (stored 0600, never echoed)
// and their model lists, personas, the sandbox lists.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

function pairs(box, rows) {
  box.textContent = "";
  for (const [label, value] of rows) {
    const dt = document.createElement("div");
    dt.textContent = label;
    const dd = document.createElement("div");
    dd.textContent = value;
    box.append(dt, dd);
  }
}

function keyLabel(key) {
  if (!key) return t("未设置", "not set");
  if (key === "stored") return t("已保存（数据文件夹）", "stored (data folder)");
  if (key === "config.toml") return t("写在 config.toml 里", "in config.toml");
  return t(`环境变量 ${key}`, `environment ${key}`);
}

function connectionRow(conn) {
  const tr = document.createElement("tr");
  tr.dataset.connection = conn.name;
  for (const text of [conn.name, conn.base_url]) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.append(td);
  }
  const keyCell = document.createElement("td");
  const state = document.createElement("span");
  state.className = "key-state";
  state.textContent = keyLabel(conn.key);
  const input = document.createElement("input");
  input.type = "password";
  input.autocomplete = "off";
  input.className = "key-input";
  input.placeholder = t("粘贴新的密钥", "paste a new key");
  const save = document.createElement("button");
  save.type = "button";
  save.className = "secondary save-key";
  save.textContent = t("保存密钥", "Save key");
  save.addEventListener("click", async () => {
    try {
      await api("/api/settings/key", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ connection: conn.name, key: input.value }) });
      input.value = "";
      state.textContent = keyLabel(conn.key || "stored");
      toast(t("密钥已保存", "Key stored"));
    } catch (error) { toast(error.message, true); }
  });
  keyCell.append(state, " ", input, " ", save);
  const models = document.createElement("td");
  const list = document.createElement("button");
  list.type = "button";
  list.className = "link list-models";
  list.textContent = t("模型列表", "Models");
  list.addEventListener("click", async () => {
    try {
      const result = await api(`/api/settings/models?connection=${encodeURIComponent(conn.name)}`);
      const box = document.getElementById("model-list");
      box.textContent = "";
      for (const name of result.models) { const li = document.createElement("li"); li.textContent = name; box.append(li); }
    } catch (error) { toast(error.message, true); }
  });
  models.append(list);
  tr.append(keyCell, models);
  return tr;
}

async function load() {
  const s = await api("/api/settings");
  pairs(document.getElementById("play"), [[t("你的名字", "Your name"), s.user_name], [t("对话方式", "Mode"), s.mode],
    [t("写入门禁", "Creation mode"), s.creation_mode], [t("扫描深度", "Scan depth"), String(s.scan_depth)],
    [t("每拍设定上限", "Lore per beat"), String(s.max_lore_injections)]]);
  const model = (m) => `${m.provider} · ${m.model || t("默认", "default")} · ${t("思考", "thinking")} ${m.thinking}`;
  pairs(document.getElementById("models"), [[t("主模型", "Main model"), model(s.model)], [t("旁路模型", "Side model"), model(s.side_model)]]);
  const rows = document.getElementById("connections");
  rows.textContent = "";
  for (const conn of s.connections) rows.append(connectionRow(conn));
  const personas = document.getElementById("personas");
  personas.textContent = "";
  for (const name of s.personas.length ? s.personas : [t("（还没有人设）", "(no personas yet)")]) {
    const li = document.createElement("li"); li.textContent = name; personas.append(li);
  }
  document.getElementById("blacklist").textContent = s.sandbox.blacklist.join("\n");
  document.getElementById("no-ask").textContent = s.sandbox.no_ask_prefixes.join("  ");
  translate();
}

load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error.message, true));
