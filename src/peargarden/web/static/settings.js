// Settings: config.toml's values (saved in place, its comments kept), the connections with a key
// field (stored 0600, never echoed) and their model lists, personas, the sandbox lists.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

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
      const known = document.getElementById("known-models");
      known.textContent = "";
      for (const name of result.models) {
        const li = document.createElement("li"); li.textContent = name; box.append(li);
        const option = document.createElement("option"); option.value = name; known.append(option);
      }
    } catch (error) { toast(error.message, true); }
  });
  models.append(list);
  tr.append(keyCell, models);
  return tr;
}

const LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const value = (id) => document.getElementById(id).value;

const FOLLOW = () => t("跟随主模型", "follow the main model");

function fillSelect(id, options, chosen) {
  const select = document.getElementById(id);
  select.textContent = "";
  for (const option of options) {
    const el = document.createElement("option");
    el.value = option;
    el.textContent = option === "local" ? t("local（内置本地模型）", "local (embedded model)")
      : option === "" ? FOLLOW() : option;
    select.append(el);
  }
  select.value = chosen;
}

async function load() {
  const s = await api("/api/settings");
  for (const key of ["user_name", "user_persona", "mode", "creation_mode", "scan_depth", "max_lore_injections"]) {
    document.getElementById(key).value = s[key];
  }
  const connections = ["local", ...s.connections.map((c) => c.name)];
  fillSelect("model-provider", connections, s.model.provider);
  // The side model: "" (the default) follows the main model; a blank model name follows it too.
  fillSelect("side-provider", ["", ...connections], s.side_model.provider);
  fillSelect("model-thinking", LEVELS, s.model.thinking);
  fillSelect("side-thinking", ["", ...LEVELS], s.side_model.thinking);
  document.getElementById("model-model").value = s.model.model;
  const sideModel = document.getElementById("side-model");
  sideModel.value = s.side_model.model;
  sideModel.placeholder = `${FOLLOW()}（${s.side_model_effective.model || s.side_model_effective.provider}）`;
  const rows = document.getElementById("connections");
  rows.textContent = "";
  for (const conn of s.connections) rows.append(connectionRow(conn));
  document.getElementById("blacklist").value = s.sandbox.blacklist.join("\n");
  document.getElementById("no-ask").value = s.sandbox.no_ask_prefixes.join("\n");
  translate();
}

function lines(id) { return value(id).split("\n").map((l) => l.trim()).filter(Boolean); }

async function save(body, message) {
  try {
    await api("/api/settings", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    // The form is read back first: a toast means the page shows what was saved (and a quick next edit
    // is not overwritten by a reload still on its way).
    await load();
    toast(message);
  } catch (error) { toast(error.message, true); }
}

document.getElementById("settings-form").addEventListener("submit", (event) => {
  event.preventDefault();
  save({
    user_name: value("user_name"), user_persona: value("user_persona"), mode: value("mode"),
    creation_mode: value("creation_mode"), scan_depth: Number(value("scan_depth")),
    max_lore_injections: Number(value("max_lore_injections")),
    model: { provider: value("model-provider"), model: value("model-model"), thinking: value("model-thinking") },
    side_model: { provider: value("side-provider"), model: value("side-model"), thinking: value("side-thinking") },
    sandbox: { blacklist: lines("blacklist"), no_ask_prefixes: lines("no-ask") },
  }, t("设置已保存", "Settings saved"));
});
document.getElementById("save-connection").addEventListener("click", () => {
  save({ connection: { name: value("conn-name").trim(), base_url: value("conn-url").trim() } }, t("连接已保存", "Connection saved"));
});

load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error.message, true));
