// The extensions page: each feature's table of config.toml as a form (saved table by table), its key
// (stored, never shown again), and what a feature keeps beside its settings (themes, sprites).
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

let settings = null;
const languages = () => settings.languages.map((l) => [l.code, t(l.zh, l.en)]);

// Each table: its title and its fields as [key, kind, 中文, English, choices?].
const TABLES = [
  ["translate", "翻译", "Translation", "key", () => [
    ["backend", "select", "后端", "Back end", [["", t("关闭", "off")], ["side", t("副模型", "side model")], ["libre", "LibreTranslate"], ["deepl", "DeepL"], ["deeplx", "DeepLX"]]],
    ["base_url", "text", "服务器地址", "Server address"],
    ["api_key_env", "text", "密钥的环境变量", "Key's environment variable"],
    ["language", "select", "译成（你的语言）", "Into (your language)", languages()],
    ["auto", "select", "自动翻译", "Translate on their own", [["none", t("不自动", "none")], ["replies", t("回复", "replies")], ["inputs", t("输入", "inputs")], ["both", t("回复和输入", "both")]]],
    ["model_language", "select", "发给模型的语言", "Language the model reads", [["", t("卡的语言", "the card's")], ...languages()]],
  ]],
];

function field(table, [key, kind, zh, en, choices], value) {
  const id = `${table}-${key}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = t(zh, en);
  let input;
  if (kind === "select") {
    input = document.createElement("select");
    for (const [optionValue, text] of choices) {
      const option = document.createElement("option");
      option.value = optionValue;
      option.textContent = text;
      input.append(option);
    }
    input.value = value ?? "";
  } else if (kind === "check") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = Boolean(value);
  } else if (kind === "area") {
    input = document.createElement("textarea");
    input.rows = 3;
    input.value = value ?? "";
  } else {
    input = document.createElement("input");
    input.type = kind === "number" ? "number" : "text";
    if (kind === "number") input.step = "any";
    input.value = value ?? "";
  }
  input.id = id;
  input.dataset.key = key;
  input.dataset.kind = kind;
  return [label, input];
}

function valueOf(input) {
  if (input.dataset.kind === "check") return input.checked;
  if (input.dataset.kind === "number") return Number(input.value);
  return input.value;
}

function keyRow(table, form) {
  const box = document.createElement("div");
  box.className = "extras-key";
  const input = document.createElement("input");
  input.type = "password";
  input.id = `${table}-key`;
  input.autocomplete = "off";
  input.placeholder = settings[table].has_key ? t("已存有密钥（留空再保存即删除）", "a key is stored (save empty to forget it)") : t("密钥", "key");
  const save = document.createElement("button");
  save.type = "button";
  save.className = "secondary";
  save.textContent = t("保存密钥", "Save key");
  save.addEventListener("click", async () => {
    try {
      const done = await post(`/api/extras/keys/${table}`, { key: input.value });
      input.value = "";
      settings[table].has_key = done.has_key;
      toast(done.has_key ? t("密钥已保存", "Key saved") : t("密钥已删除", "Key forgotten"));
    } catch (error) { toast(error.message, true); }
  });
  box.append(input, save);
  form.append(box);
}

function drawTable([table, zh, en, key, fields]) {
  const form = document.createElement("form");
  form.className = "panel extras-form";
  form.id = `extras-${table}`;
  const title = document.createElement("h2");
  title.textContent = t(zh, en);
  const grid = document.createElement("div");
  grid.className = "kv";
  for (const spec of fields()) grid.append(...field(table, spec, settings[table][spec[0]]));
  const save = document.createElement("button");
  save.type = "submit";
  save.className = "button";
  save.textContent = t("保存", "Save");
  form.append(title, grid, save);
  if (key) keyRow(table, form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = {};
    for (const input of grid.querySelectorAll("[data-key]")) values[input.dataset.key] = valueOf(input);
    try {
      settings[table] = { ...settings[table], ...(await post(`/api/extras/settings/${table}`, values)) };
      toast(t("已保存", "Saved"));
    } catch (error) { toast(error.message, true); }
  });
  return form;
}

function draw() {
  const box = document.getElementById("extras-forms");
  box.textContent = "";
  for (const table of TABLES) box.append(drawTable(table));
  translate(document.getElementById("extras"));
}

settings = await api("/api/extras/settings");
draw();
document.addEventListener("pear-lang", draw);
document.body.dataset.ready = "1";
