// Tavern-mode controls: prompt order and switches, context and response length, pinned examples,
// this chat's Author's Note, the card's regex scripts, and the dry run's warnings (history space).
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { loadScripts, scriptForm } from "./regex_editor.js";

const root = document.getElementById("tavern");
const card = encodeURIComponent(root.dataset.card);
const chat = root.dataset.chat;
let current = null;

async function set(key, value, quiet = false) {
  try {
    const result = await api(`/api/tavern/${card}`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ key, value: String(value), chat }) });
    current = result.controls;
    draw();
    await dryRun();
    if (!quiet) toast(t(`已保存（${result.where}）`, `Saved (${result.where})`));
  } catch (error) { toast(error, true); await load(); }
}

// On/off of one of the card's regex scripts: written into the card file (extensions.regex_scripts[i].disabled).
async function switchRegex(script, enabled) {
  try {
    current = await api(`/api/tavern/${card}/regex`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ index: script.index, enabled, name: script.name, chat }) });
    draw();
    await dryRun();
    toast(enabled ? t("正则脚本已启用（写入角色卡）", "Regex script on (saved in the card)")
      : t("正则脚本已停用（写入角色卡）", "Regex script off (saved in the card)"));
  } catch (error) { toast(error, true); await load(); }
}

function move(index, step) {
  const ids = current.order.map((e) => e.identifier);
  const [item] = ids.splice(index, 1);
  ids.splice(index + step, 0, item);
  set("order", ids.join(","));
}

function draw() {
  document.getElementById("preset-name").textContent = current.preset
    ? t(`预设：${current.preset}`, `Preset: ${current.preset}`) : t("没有预设：SillyTavern 默认值", "No preset: SillyTavern defaults");
  const list = document.getElementById("order");
  list.textContent = "";
  current.order.forEach((entry, index) => {
    const li = document.createElement("li");
    li.dataset.id = entry.identifier;
    const toggle = document.createElement("input");
    toggle.type = "checkbox";
    toggle.className = "switch";
    toggle.checked = entry.enabled;
    toggle.setAttribute("aria-label", entry.name);
    toggle.addEventListener("change", () => set(`prompt.${entry.identifier}`, toggle.checked ? "on" : "off"));
    const name = document.createElement("span");
    name.className = "entry-name";
    name.textContent = entry.name;
    const up = document.createElement("button");
    up.type = "button"; up.className = "link up"; up.textContent = "↑"; up.disabled = index === 0;
    up.addEventListener("click", () => move(index, -1));
    const down = document.createElement("button");
    down.type = "button"; down.className = "link down"; down.textContent = "↓"; down.disabled = index === current.order.length - 1;
    down.addEventListener("click", () => move(index, 1));
    li.append(toggle, " ", name, up, down);
    list.append(li);
  });
  document.getElementById("context").value = current.context;
  document.getElementById("response").value = current.response;
  document.getElementById("pin_examples").checked = current.pin_examples;
  document.getElementById("note-prompt").value = current.note.prompt;
  document.getElementById("note-interval").value = current.note.interval;
  document.getElementById("note-depth").value = current.note.depth;
  document.getElementById("note-position").value = current.note.position;
  document.getElementById("note-role").value = current.note.role;
  const regex = document.getElementById("regex");
  regex.textContent = "";
  for (const script of current.regex_scripts) {
    const li = document.createElement("li");
    li.dataset.index = script.index;
    li.classList.toggle("off", script.disabled);
    const toggle = document.createElement("input");
    toggle.type = "checkbox";
    toggle.className = "switch";
    toggle.checked = !script.disabled;
    toggle.setAttribute("aria-label", script.name || `regex ${script.index + 1}`);
    toggle.addEventListener("change", () => switchRegex(script, toggle.checked));
    const name = document.createElement("span");
    name.className = "entry-name";
    name.textContent = `${script.name || t("（无名）", "(unnamed)")} — ${script.find}`;
    const edit = document.createElement("button");
    edit.type = "button"; edit.className = "link regex-edit"; edit.textContent = t("编辑", "Edit");
    edit.addEventListener("click", () => openScript(li, script.index));
    li.append(toggle, " ", name, edit);
    regex.append(li);
  }
  if (!current.regex_scripts.length) regex.textContent = t("（这张卡没有正则脚本）", "(no regex scripts in this card)");
  translate(root);
}

// The regex editor: one form under the script's row (or under the list for a new script).
async function regexSaved() { await load(); await dryRun(); }

async function openScript(li, index) {
  const open = li.nextElementSibling;
  if (open && open.classList.contains("regex-editing")) { open.remove(); return; }
  try {
    const item = (await loadScripts(card)).find((s) => s.index === index);
    if (!item) { toast(t("卡里的正则脚本已经变了，请刷新页面", "The card changed: reload the page"), true); return; }
    const holder = document.createElement("li");
    holder.className = "regex-editing";
    holder.append(scriptForm(card, item, regexSaved));
    li.after(holder);
  } catch (error) { toast(error, true); }
}

document.getElementById("regex-new").addEventListener("click", () => {
  const holder = document.getElementById("regex-new-form");
  holder.textContent = "";
  holder.append(scriptForm(card, null, async () => { holder.textContent = ""; await regexSaved(); }));
});

async function dryRun() {
  const box = document.getElementById("tavern-warnings");
  box.textContent = "";
  try {
    const result = await api(`/api/inspect/${card}/${encodeURIComponent(chat)}?source=dry:tavern`);
    const round = result.rounds[0];
    document.getElementById("budget").textContent = t(`试运行：${round.total_tokens} token`, `Dry run: ${round.total_tokens} tokens`);
    for (const warning of result.warnings) { const li = document.createElement("li"); li.textContent = `⚠ ${warning}`; box.append(li); }
  } catch (error) {
    const li = document.createElement("li"); li.textContent = error.message; box.append(li);
  }
  box.hidden = box.childElementCount === 0;
}

async function load() {
  current = await api(`/api/tavern/${card}?chat=${encodeURIComponent(chat)}`);
  draw();
}

for (const key of ["context", "response"]) {
  document.getElementById(key).addEventListener("change", (event) => set(key, event.target.value));
}
document.getElementById("pin_examples").addEventListener("change", (event) => set("pin_examples", event.target.checked ? "on" : "off"));
document.getElementById("note-save").addEventListener("click", async () => {
  // Read every field first: each save redraws the form from the server's answer.
  const fields = [["note.interval", "note-interval"], ["note.depth", "note-depth"], ["note.position", "note-position"],
    ["note.role", "note-role"], ["note.prompt", "note-prompt"]].map(([key, id]) => [key, document.getElementById(id).value]);
  for (const [index, [key, value]] of fields.entries()) await set(key, value, index < fields.length - 1);
});

Promise.all([load(), dryRun()]).then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
