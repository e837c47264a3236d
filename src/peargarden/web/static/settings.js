// Settings: config.toml's values (saved in place, its comments kept), the connections with a key
// field (stored 0600, never echoed) and their model lists, personas, the sandbox lists.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { connectForm } from "./connect_form.js";

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
    } catch (error) { toast(error, true); }
  });
  keyCell.append(state, " ", input, " ", save);
  // SillyTavern's streaming switch, per connection: off asks for the whole reply at once.
  const streaming = document.createElement("label");
  streaming.className = "stream-switch";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.checked = conn.stream !== false;
  box.addEventListener("change", async () => {
    try {
      await api("/api/settings", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ connection: { name: conn.name, stream: box.checked } }) });
      toast(box.checked ? t("已开启流式输出", "Streaming on") : t("已关闭流式输出：回复整段到达", "Streaming off: replies arrive whole"));
    } catch (error) { box.checked = !box.checked; toast(error, true); }
  });
  streaming.append(box, " ", t("流式输出", "Streaming"));
  keyCell.append(" ", streaming);
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
    } catch (error) { toast(error, true); }
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
  embeddedModels(s.embedded, s.model.local_path);
  const sideModel = document.getElementById("side-model");
  sideModel.value = s.side_model.model;
  sideModel.placeholder = `${FOLLOW()}（${s.side_model_effective.model || s.side_model_effective.provider}）`;
  const rows = document.getElementById("connections");
  rows.textContent = "";
  for (const conn of s.connections) rows.append(connectionRow(conn));
  drawProfiles(s.profiles, s.active_profile);
  document.getElementById("blacklist").value = s.sandbox.blacklist.join("\n");
  document.getElementById("no-ask").value = s.sandbox.no_ask_prefixes.join("\n");
  translate();
}

// The embedded model chats run (connection "local"): the set-up's choice for this machine (its line
// under the list), or one the user picks; a model not fetched yet cannot be picked here.
function embeddedModels(rows, current) {
  const select = document.getElementById("model-local");
  select.textContent = "";
  const auto = document.createElement("option");
  auto.value = "";
  const chosen = rows.find((row) => row.default);
  auto.textContent = t(`自动（这台机器选的：${chosen ? chosen.name : "qwen-0.5b"}）`, `automatic (this machine's: ${chosen ? chosen.name : "qwen-0.5b"})`);
  select.append(auto);
  for (const row of rows) {
    const option = document.createElement("option");
    option.value = row.name;
    option.textContent = `${row.name} · ${row.model}` + (row.fetched ? "" : t("（未下载）", " (not fetched)"));
    option.disabled = !row.fetched;
    select.append(option);
  }
  if (current && !rows.some((row) => row.name === current)) {
    const own = document.createElement("option");
    own.value = current;
    own.textContent = current;
    select.append(own);
  }
  select.value = current || "";
  const line = rows.map((row) => row.chosen).find(Boolean);
  document.getElementById("model-choice").textContent = line || t("还没有测过这台机器（pear models --choose）", "not measured on this machine yet (pear models --choose)");
}

// Connection profiles: apply one (connection, model, thinking, preset at once) or forget it.
function drawProfiles(profiles, active) {
  const list = document.getElementById("profiles");
  list.textContent = "";
  for (const profile of profiles) {
    const li = document.createElement("li");
    li.dataset.profile = profile.name;
    li.classList.toggle("active", profile.name === active);
    const text = document.createElement("span");
    text.textContent = `${profile.name}：${profile.provider} / ${profile.model || "—"}`
      + (profile.thinking ? ` · ${profile.thinking}` : "") + (profile.preset ? ` · ${t("预设", "preset")} ${profile.preset}` : "")
      + (profile.name === active ? t("（使用中）", " (in use)") : "");
    const use = document.createElement("button");
    use.type = "button";
    use.className = "link profile-apply";
    use.textContent = t("应用", "Apply");
    use.addEventListener("click", () => profileAction(profile.name, "apply", t(`已切换到「${profile.name}」`, `Now using "${profile.name}"`)));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "link profile-delete";
    remove.textContent = t("删除", "Delete");
    remove.addEventListener("click", () => profileAction(profile.name, "delete", t("已删除", "Deleted")));
    li.append(text, " ", use, remove);
    list.append(li);
  }
}

async function profileAction(name, action, message) {
  try {
    await api(`/api/settings/profiles/${encodeURIComponent(name)}/${action}`, { method: "POST" });
    await load();
    toast(message);
  } catch (error) { toast(error, true); }
}

document.getElementById("profile-save").addEventListener("click", async () => {
  const body = { name: value("profile-name").trim(), provider: value("model-provider"), model: value("model-model").trim(),
    thinking: value("model-thinking"), preset: value("profile-preset").trim() };
  try {
    await api("/api/settings/profiles", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    await load();
    toast(t("配置已保存", "Profile saved"));
  } catch (error) { toast(error, true); }
});

function lines(id) { return value(id).split("\n").map((l) => l.trim()).filter(Boolean); }

async function save(body, message) {
  try {
    await api("/api/settings", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    // The form is read back first: a toast means the page shows what was saved (and a quick next edit
    // is not overwritten by a reload still on its way).
    await load();
    toast(message);
  } catch (error) { toast(error, true); }
}

document.getElementById("settings-form").addEventListener("submit", (event) => {
  event.preventDefault();
  save({
    user_name: value("user_name"), user_persona: value("user_persona"), mode: value("mode"),
    creation_mode: value("creation_mode"), scan_depth: Number(value("scan_depth")),
    max_lore_injections: Number(value("max_lore_injections")),
    model: { provider: value("model-provider"), model: value("model-model"), thinking: value("model-thinking"),
      local_path: value("model-local") },
    side_model: { provider: value("side-provider"), model: value("side-model"), thinking: value("side-thinking") },
    sandbox: { blacklist: lines("blacklist"), no_ask_prefixes: lines("no-ask") },
  }, t("设置已保存", "Settings saved"));
});
document.getElementById("save-connection").addEventListener("click", () => {
  save({ connection: { name: value("conn-name").trim(), base_url: value("conn-url").trim() } }, t("连接已保存", "Connection saved"));
});

// The one-step connection (the home page's): saved and in force, the page reads the settings again.
connectForm(() => load().catch((error) => toast(error, true)));
load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
