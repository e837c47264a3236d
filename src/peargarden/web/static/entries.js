// The entries panel: a switch for every heading of the global and card APPEND_SYSTEM.md and the
// card's AGENTS.md, with an editor for the entry's text.  The next beat reads the files again.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

const root = document.getElementById("entries");
const card = encodeURIComponent(root.dataset.card);
const box = document.getElementById("entry-files");
const OWNERS = { preset: ["预设", "preset"], card: ["角色卡", "card"], lorebook: ["世界书", "lorebook"] };

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function entryRow(file, entry) {
  const row = document.createElement("div");
  row.className = entry.enabled ? "entry" : "entry off";
  row.dataset.name = entry.name;
  const head = document.createElement("div");
  head.className = "entry-head";
  const toggle = document.createElement("input");
  toggle.type = "checkbox";
  toggle.className = "switch";
  toggle.checked = entry.enabled;
  toggle.setAttribute("aria-label", entry.name);
  toggle.addEventListener("change", async () => {
    try {
      await post(`/api/entries/${card}/${file}/switch`, { name: entry.name, enabled: toggle.checked });
      row.classList.toggle("off", !toggle.checked);
      toast(toggle.checked ? t(`已打开「${entry.title}」`, `"${entry.title}" on`) : t(`已关闭「${entry.title}」`, `"${entry.title}" off`));
    } catch (error) { toggle.checked = !toggle.checked; toast(error, true); }
  });
  const name = document.createElement("span");
  name.className = "entry-name";
  name.textContent = `${"#".repeat(entry.level)} ${entry.title}`;
  head.append(toggle, name);
  if (entry.source) {
    const owner = document.createElement("span");
    owner.className = "owner";
    const [zh, en] = OWNERS[entry.source] || [entry.source, entry.source];
    owner.textContent = t(zh, en);
    head.append(owner);
  }
  const edit = document.createElement("button");
  edit.type = "button";
  edit.className = "link edit";
  edit.textContent = t("编辑", "Edit");
  head.append(edit);
  row.append(head);
  edit.addEventListener("click", () => {
    if (row.querySelector("textarea")) return;
    const area = document.createElement("textarea");
    area.value = entry.content;
    const save = document.createElement("button");
    save.type = "button";
    save.className = "button save";
    save.textContent = t("保存", "Save");
    save.addEventListener("click", async () => {
      try {
        await post(`/api/entries/${card}/${file}/edit`, { name: entry.name, content: area.value });
        entry.content = area.value;
        area.remove(); save.remove();
        toast(t("已保存", "Saved"));
      } catch (error) { toast(error, true); }
    });
    row.append(area, save);
    area.focus();
  });
  return row;
}

async function load() {
  const files = await api(`/api/entries/${card}`);
  box.textContent = "";
  for (const file of files) {
    const panel = document.createElement("div");
    panel.className = "panel";
    panel.dataset.file = file.file;
    const title = document.createElement("h2");
    title.textContent = file.label;
    panel.append(title);
    for (const entry of file.entries) panel.append(entryRow(file.file, entry));
    box.append(panel);
  }
  translate(root);
}

load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
