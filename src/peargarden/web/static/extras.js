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
  ["expressions", "表情", "Expressions", null, () => [
    ["classify", "select", "谁来判断表情", "Who picks the label", [["auto", t("自动（有副模型端点用它，否则看关键词）", "auto (the side model when it is an endpoint, else keywords)")], ["side", t("副模型", "side model")], ["keywords", t("关键词", "keywords")]]],
    ["fallback", "select", "没有对应立绘时", "When a label has no sprite", settings.labels.map((label) => [label, label])],
    ["prompt", "area", "副模型的提示（{{labels}} 是标签表）", "Side model's instruction ({{labels}}: the labels)"],
    ["layout", "select", "显示", "Layout", [["side", t("聊天旁边", "beside the chat")], ["vn", t("全屏立绘（视觉小说）", "full height (visual novel)")], ["off", t("关闭", "off")]]],
  ], drawSprites],
  ["tts", "语音", "Voices", "key", () => [
    ["backend", "select", "后端", "Back end", [["", t("关闭", "off")], ["browser", t("浏览器自带（不需要服务器）", "the browser's own (no server)")], ["openai", t("OpenAI 兼容 /v1/audio/speech", "OpenAI-compatible /v1/audio/speech")], ["gpt-sovits", "GPT-SoVITS"]]],
    ["base_url", "text", "服务器地址", "Server address"],
    ["connection", "text", "或用一个连接（名字）", "Or a connection (its name)"],
    ["api_key_env", "text", "密钥的环境变量", "Key's environment variable"],
    ["model", "text", "模型", "Model"],
    ["voice", "text", "默认声音", "Default voice"],
    ["voices", "map", "每个角色的声音（一行一个：名字 = 声音）", "A voice per character (one a line: name = voice)"],
    ["speed", "number", "语速", "Speed"],
    ["auto_play", "check", "自动朗读回复", "Read replies aloud"],
    ["quotes_only", "check", "只念引号里的话", "Only the quotes"],
    ["skip_asterisks", "check", "不念 *星号* 里的内容", "Not what is inside *asterisks*"],
    ["skip_code", "check", "不念代码块", "Skip code blocks"],
    ["narrate_user", "check", "也念你发的话", "Read your messages too"],
    ["text_lang", "text", "GPT-SoVITS：文本语言", "GPT-SoVITS: text language"],
    ["prompt_lang", "text", "GPT-SoVITS：参考音频语言", "GPT-SoVITS: reference audio language"],
  ], drawBrowserVoices],
  ["pictures", "生图", "Pictures", "key", () => [
    ["backend", "select", "后端", "Back end", [["", t("关闭", "off")], ["openai", t("OpenAI 兼容 /v1/images/generations", "OpenAI-compatible /v1/images/generations")], ["sdwebui", "Stable Diffusion WebUI"], ["comfyui", "ComfyUI"]]],
    ["base_url", "text", "服务器地址", "Server address"],
    ["connection", "text", "或用一个连接（名字）", "Or a connection (its name)"],
    ["api_key_env", "text", "密钥的环境变量", "Key's environment variable"],
    ["model", "text", "模型", "Model"],
    ["width", "number", "宽", "Width"],
    ["height", "number", "高", "Height"],
    ["steps", "number", "步数", "Steps"],
    ["cfg_scale", "number", "CFG", "CFG scale"],
    ["sampler", "text", "采样器", "Sampler"],
    ["seed", "number", "种子（-1 随机）", "Seed (-1 random)"],
    ["negative", "area", "反向提示词", "Negative prompt"],
    ["prefix", "text", "每个提示词前加上", "Put before every prompt"],
    ["workflow", "text", "ComfyUI 工作流文件（API 格式）", "ComfyUI workflow file (API format)"],
    ["instructions.last", "area", "副模型怎么写「最后一条回复」的提示词", "Side model's instruction: the last reply", null, settings.picture_instructions.last],
    ["instructions.character", "area", "……「角色」的", "… the character", null, settings.picture_instructions.character],
    ["instructions.scene", "area", "……「场景」的", "… the scene", null, settings.picture_instructions.scene],
  ], drawWorkflowUpload],
];

// A ComfyUI workflow saved with "Save (API Format)": kept in the data folder and named in [pictures].
async function drawWorkflowUpload(form) {
  const box = document.createElement("div");
  box.className = "extras-key";
  const file = document.createElement("input");
  file.type = "file";
  file.id = "workflow-file";
  file.accept = ".json,application/json";
  const send = document.createElement("button");
  send.type = "button";
  send.className = "secondary";
  send.textContent = t("上传 ComfyUI 工作流", "Upload a ComfyUI workflow");
  send.addEventListener("click", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    try {
      const done = await post("/api/extras/comfy-workflow", { name: chosen.name, text: await chosen.text() });
      form.querySelector("#pictures-workflow").value = done.workflow;
      settings.pictures.workflow = done.workflow;
      toast(t("工作流已保存", "Workflow saved"));
    } catch (error) { toast(error.message, true); }
  });
  box.append(file, send);
  form.append(box);
}

// The voices this browser has (for the browser back end: a name from this list).
async function drawBrowserVoices(form) {
  if (!window.speechSynthesis) return;
  const list = document.createElement("datalist");
  list.id = "browser-voices";
  const fill = () => {
    list.textContent = "";
    for (const voice of speechSynthesis.getVoices()) {
      const option = document.createElement("option");
      option.value = voice.name;
      option.label = `${voice.name} (${voice.lang})`;
      list.append(option);
    }
  };
  fill();
  speechSynthesis.addEventListener("voiceschanged", fill);
  form.append(list);
  form.querySelector("#tts-voice")?.setAttribute("list", "browser-voices");
}

function field(table, [key, kind, zh, en, choices, hint], value) {
  const id = `${table}-${key.replace(".", "-")}`;
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
  } else if (kind === "map") {
    input = document.createElement("textarea");
    input.rows = 3;
    input.value = Object.entries(value || {}).map(([name, item]) => `${name} = ${item}`).join("\n");
  } else {
    input = document.createElement("input");
    input.type = kind === "number" ? "number" : "text";
    if (kind === "number") input.step = "any";
    input.value = value ?? "";
  }
  if (hint) input.placeholder = hint;
  input.id = id;
  input.dataset.key = key;
  input.dataset.kind = kind;
  return [label, input];
}

function valueOf(input) {
  if (input.dataset.kind === "check") return input.checked;
  if (input.dataset.kind === "map") {
    const found = {};
    for (const line of input.value.split("\n")) {
      const cut = line.indexOf("=");
      if (cut > 0 && line.slice(0, cut).trim()) found[line.slice(0, cut).trim()] = line.slice(cut + 1).trim();
    }
    return found;
  }
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

// A card's sprite set: pick the card, upload pictures named by label (or a zip / CHARX), see what it has.
async function drawSprites(form) {
  const box = document.createElement("div");
  box.className = "extras-sprites";
  const title = document.createElement("h3");
  title.textContent = t("表情立绘", "Sprites");
  const cardSelect = document.createElement("select");
  cardSelect.id = "sprites-card";
  const files = document.createElement("input");
  files.type = "file";
  files.id = "sprites-files";
  files.multiple = true;
  files.accept = "image/*,.zip,.charx";
  const upload = document.createElement("button");
  upload.type = "button";
  upload.className = "secondary";
  upload.id = "sprites-upload";
  upload.textContent = t("导入", "Import");
  const grid = document.createElement("ul");
  grid.className = "sprite-grid";
  const hint = document.createElement("p");
  hint.className = "hint";
  hint.textContent = t("每张图以表情命名（joy.png、开心.png…），或一个 zip（酒馆的 characters/<名字>/）、CHARX 卡。",
    "Name each picture by its label (joy.png, 开心.png…), or give a zip (SillyTavern's characters/<name>/) or a CHARX card.");
  box.append(title, hint, cardSelect, files, upload, grid);
  form.append(box);
  // Only the newest answer is drawn: a card's list asked for before an import can come back after it.
  let asked = 0;
  const show = (rows) => {
    grid.textContent = "";
    for (const row of rows) {
      const item = document.createElement("li");
      const img = document.createElement("img");
      img.src = row.url;
      img.alt = row.label;
      img.loading = "lazy";
      const label = document.createElement("span");
      label.textContent = row.label;
      item.append(img, label);
      grid.append(item);
    }
    if (!rows.length) grid.textContent = t("这张卡还没有表情立绘。", "This card has no sprites yet.");
  };
  const load = async () => {
    const mine = ++asked;
    const rows = await api(`/api/cards/${encodeURIComponent(cardSelect.value)}/sprites`);
    if (mine === asked) show(rows);
  };
  for (const card of await api("/api/cards")) {
    const option = document.createElement("option");
    option.value = card.folder;
    option.textContent = card.name || card.folder;
    cardSelect.append(option);
  }
  cardSelect.addEventListener("change", () => load().catch((error) => toast(error.message, true)));
  upload.addEventListener("click", async () => {
    if (!files.files.length) return;
    const body = new FormData();
    for (const file of files.files) body.append("files", file);
    const mine = ++asked;
    try {
      const done = await api(`/api/cards/${encodeURIComponent(cardSelect.value)}/sprites`, { method: "POST", body });
      if (mine === asked) show(done.sprites);
      files.value = "";
      toast(t(`导入了 ${done.written.length} 张`, `${done.written.length} imported`));
    } catch (error) { toast(error.message, true); }
  });
  if (cardSelect.value) await load();
}

function drawTable([table, zh, en, key, fields, more]) {
  const form = document.createElement("form");
  form.className = "panel extras-form";
  form.id = `extras-${table}`;
  const title = document.createElement("h2");
  title.textContent = t(zh, en);
  const grid = document.createElement("div");
  grid.className = "kv";
  for (const spec of fields()) {
    const [head, tail] = spec[0].split(".");
    grid.append(...field(table, spec, tail ? (settings[table][head] || {})[tail] : settings[table][head]));
  }
  const save = document.createElement("button");
  save.type = "submit";
  save.className = "button";
  save.textContent = t("保存", "Save");
  form.append(title, grid, save);
  if (key) keyRow(table, form);
  if (more) more(form).catch((error) => toast(error.message, true));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = {};
    for (const input of grid.querySelectorAll("[data-key]")) {
      const [head, tail] = input.dataset.key.split(".");
      if (!tail) values[head] = valueOf(input);
      else if (valueOf(input)) values[head] = { ...(values[head] || {}), [tail]: valueOf(input) };
      else values[head] = values[head] || {};  // a sub-table given whole: what is left empty is ours again
    }
    try {
      settings[table] = { ...settings[table], ...(await post(`/api/extras/settings/${table}`, values)) };
      toast(t("已保存", "Saved"));
    } catch (error) { toast(error.message, true); }
  });
  return form;
}

// Themes (SillyTavern's UI themes): light or dark, the theme in force, import / export / delete, and
// the user CSS (the theme's custom_css; the page takes out what could load anything).
async function drawThemes() {
  const state = await api("/api/themes");
  const form = document.createElement("form");
  form.className = "panel extras-form";
  form.id = "extras-theme";
  const title = document.createElement("h2");
  title.textContent = t("主题（美化）", "Themes");
  const grid = document.createElement("div");
  grid.className = "kv";
  const [modeLabel, mode] = field("theme", ["mode", "select", "明暗", "Light or dark",
    [["light", t("亮", "light")], ["dark", t("暗", "dark")], ["auto", t("跟随系统", "as the system")]]], state.mode);
  const [nameLabel, name] = field("theme", ["name", "select", "主题", "Theme",
    [["", t("梨园自己的样子", "Pear Garden's own")], ...state.themes.map((theme) => [theme.name, theme.error ? `${theme.name} ⚠` : theme.name])]], state.active);
  const [cssLabel, css] = field("theme", ["css", "area", "自定义 CSS（存进正在用的主题）", "Your CSS (kept in the theme in force)"], state.css);
  css.rows = 6;
  css.classList.add("mono");
  grid.append(modeLabel, mode, nameLabel, name, cssLabel, css);
  const removed = document.createElement("ul");
  removed.className = "extras-removed";
  for (const item of state.removed) {
    const li = document.createElement("li");
    li.textContent = t(`页面不会用：${item}`, `The page leaves out: ${item}`);
    removed.append(li);
  }
  const buttons = document.createElement("div");
  buttons.className = "extras-key";
  const act = (zh, en, id, handler) => {
    const node = document.createElement("button");
    node.type = "button";
    node.className = "secondary";
    node.id = id;
    node.textContent = t(zh, en);
    node.addEventListener("click", async () => {
      try { await handler(); location.reload(); } catch (error) { toast(error.message, true); }
    });
    buttons.append(node);
  };
  act("使用", "Use", "theme-use", async () => {
    await post("/api/themes/mode", { mode: mode.value });
    await post("/api/themes/use", { name: name.value });
  });
  act("保存 CSS", "Save CSS", "theme-css", () => post("/api/themes/css", { css: css.value }));
  act("删除主题", "Delete theme", "theme-delete", () => (name.value ? post("/api/themes/delete", { name: name.value }) : null));
  const exportLink = document.createElement("a");
  exportLink.id = "theme-export";
  exportLink.textContent = t("导出（酒馆格式）", "Export (SillyTavern)");
  const exportHref = () => { exportLink.href = `/api/themes/export${name.value ? `?name=${encodeURIComponent(name.value)}` : ""}`; };
  name.addEventListener("change", exportHref);
  exportHref();
  const file = document.createElement("input");
  file.type = "file";
  file.id = "theme-file";
  file.accept = ".json,application/json";
  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    try {
      const done = await post("/api/themes/import", { name: chosen.name, text: await chosen.text() });
      await post("/api/themes/use", { name: done.name });
      location.reload();
    } catch (error) { toast(error.message, true); }
  });
  const importLabel = document.createElement("label");
  importLabel.append(`${t("导入酒馆主题文件", "Import a SillyTavern theme file")} `, file);
  buttons.append(exportLink, importLabel);
  form.append(title, grid, removed, buttons);
  return form;
}

async function draw() {
  const box = document.getElementById("extras-forms");
  box.textContent = "";
  box.append(await drawThemes());
  for (const table of TABLES) box.append(drawTable(table));
  translate(document.getElementById("extras"));
}

settings = await api("/api/extras/settings");
await draw();
document.addEventListener("pear-lang", () => draw().catch((error) => toast(error.message, true)));
document.body.dataset.ready = "1";
