// The card studio beside the story: fields, greetings (card HTML only in a sandboxed frame),
// lorebook entries (blue constant / green keyword, keys and order), the supplement book, and the
// 创作/ slots: one file per slot, a syntax check for scripts and regexes, apply back into the card.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { cardText } from "./card_html.js";

const root = document.getElementById("studio");
const card = encodeURIComponent(root.dataset.card);
const FIELDS = { description: ["描述", "Description"], personality: ["性格", "Personality"], scenario: ["场景", "Scenario"],
  first_mes: ["开场白", "First message"], mes_example: ["对话示例", "Examples"], creator_notes: ["作者备注", "Creator notes"],
  system_prompt: ["系统提示词", "System prompt"], post_history_instructions: ["历史后指令", "Post-history instructions"] };

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
}

function node(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

function drawFields(fields) {
  const box = document.getElementById("fields");
  box.textContent = "";
  for (const [key, value] of Object.entries(fields)) {
    if (!value || key === "first_mes") continue;
    const [zh, en] = FIELDS[key] || [key, key];
    box.append(node("div", "field-name", t(zh, en)), node("div", "field-text", value));
  }
}

function drawGreetings(greetings) {
  const box = document.getElementById("greetings");
  box.textContent = "";
  greetings.forEach((text, i) => {
    box.append(node("div", "field-name", i === 0 ? t("开场白", "First message") : t(`备选开场白 ${i}`, `Alternate ${i}`)));
    const shown = cardText(text, "card-html greeting-frame");
    shown.classList.add("greeting");
    box.append(shown);
  });
}

// One form for changing an entry or adding one to the supplement book.
function loreForm(book, entry) {
  const form = node("div", "lore-form");
  const field = (label, en, input) => { form.append(node("label", "", t(label, en)), input); return input; };
  const input = (value, type = "text") => { const el = node("input", ""); el.type = type; el.value = value ?? ""; return el; };
  const title = field("标题", "Title", input(entry?.comment));
  title.className = "lore-title";
  const keys = field("关键词（逗号分隔）", "Keys (comma separated)", input(entry?.keys.join(", ")));
  keys.className = "lore-keys-input";
  const order = field("顺序", "Order", input(entry?.order ?? 100, "number"));
  order.className = "lore-order";
  const constant = field("常驻（蓝）", "Constant (blue)", input("", "checkbox"));
  constant.className = "lore-constant";
  constant.checked = entry?.kind === "constant";
  const disabled = field("停用", "Off", input("", "checkbox"));
  disabled.className = "lore-disabled";
  disabled.checked = Boolean(entry?.disabled);
  const content = field("内容", "Content", node("textarea", "lore-content"));
  content.value = entry?.content ?? "";
  const save = node("button", "button lore-save", t("保存条目", "Save entry"));
  save.type = "button";
  save.addEventListener("click", async () => {
    try {
      const data = await post(`/api/studio/${card}/lore`, {
        book: book.name, supplement: book.supplement, fp: entry ? entry.fp : null, comment: title.value,
        keys: keys.value.split(/[,，、]/).map((k) => k.trim()).filter(Boolean), order: Number(order.value),
        constant: constant.checked, disabled: disabled.checked, content: content.value,
      });
      drawBooks(data.lorebooks);
      toast(t("条目已保存", "Entry saved"));
    } catch (error) { toast(error, true); }
  });
  form.append(save);
  return form;
}

function drawBooks(books) {
  const box = document.getElementById("books");
  box.textContent = "";
  for (const book of books) {
    const section = node("div", "book");
    section.dataset.book = book.name;
    const label = book.supplement && book.name !== "补充设定集" ? `${book.name}（${t("补充设定集", "supplement book")}）` : book.name;
    const title = node("h3", "", book.supplement ? `${label} ${t("", "(supplement book)")}`.trim() : book.name);
    section.append(title);
    if (book.error) section.append(node("p", "error", book.error));
    if (!book.entries.length) section.append(node("p", "hint", t("（没有条目）", "(no entries)")));
    for (const entry of book.entries) {
      const item = node("div", `lore-entry ${entry.kind}${entry.disabled ? " disabled" : ""}`);
      item.dataset.uid = entry.uid;
      item.dataset.fp = entry.fp;
      const head = node("div", "", `${entry.comment || t("（无标题）", "(untitled)")} · ${t("顺序", "order")} ${entry.order}`);
      const edit = node("button", "link lore-edit", t("编辑", "Edit"));
      edit.type = "button";
      edit.addEventListener("click", () => { if (!item.querySelector(".lore-form")) item.append(loreForm(book, entry)); });
      head.append(" ", edit);
      const keys = node("div", "lore-keys", entry.kind === "constant" ? t("常驻", "constant")
        : `${t("关键词", "keys")}: ${entry.keys.join("、")}${entry.secondary.length ? ` ＋ ${entry.secondary.join("、")}` : ""}`);
      const fold = node("details", "");
      fold.append(node("summary", "", t("内容", "content")), node("div", "field-text", entry.content));
      item.append(head, keys, fold);
      section.append(item);
    }
    if (book.supplement) {
      const add = node("details", "lore-new");
      add.append(node("summary", "", t("新条目", "New entry")), loreForm(book, null));
      section.append(add);
    }
    box.append(section);
  }
}

function drawProblems(box, check) {
  box.textContent = "";
  for (const p of check.problems) box.append(node("div", "", `${p.file}:${p.line}:${p.column}: ${p.message}`));
  if (check.stale) box.append(node("div", "", t("卡文件在展开后被改过：", "The card changed since expansion: ") + check.changed_underneath.join("、")));
}

function drawProject(project) {
  const box = document.getElementById("project");
  box.textContent = "";
  if (!project.expanded) {
    box.append(node("p", "hint", t("把卡展开成一个槽位一个文件，就能逐项编辑、检查语法、写回。", "Expand the card into one file per slot to edit, check and apply.")));
    const expand = node("button", "button", t("展开到 创作/", "Expand into 创作/"));
    expand.id = "expand";
    expand.addEventListener("click", async () => {
      try { drawProject((await post(`/api/studio/${card}/expand`)).project); } catch (error) { toast(error, true); }
    });
    box.append(expand);
    return;
  }
  const problems = node("div", "problems");
  problems.id = "problems";
  drawProblems(problems, project.check);
  const changed = new Set(project.check.changes.map((c) => c.file));
  const select = node("select", "");
  select.id = "slot-select";
  for (const slot of project.slots) {
    const option = node("option", "", `${changed.has(slot.file) ? "● " : ""}${slot.label} (${slot.kind})`);
    option.value = slot.file;
    select.append(option);
  }
  const editor = node("div", "slot-editor");
  const area = node("textarea", "");
  area.id = "slot-text";
  const save = node("button", "secondary", t("保存并检查", "Save and check"));
  save.id = "slot-save";
  const apply = node("button", "button", t("写回角色卡", "Apply to the card"));
  apply.id = "apply";
  const show = () => { area.value = (project.slots.find((s) => s.file === select.value) || {}).text || ""; };
  select.addEventListener("change", show);
  save.addEventListener("click", async () => {
    try {
      const check = await post(`/api/studio/${card}/slot`, { file: select.value, text: area.value });
      const slot = project.slots.find((s) => s.file === select.value);
      if (slot) slot.text = area.value;
      drawProblems(problems, check);
      toast(check.problems.length ? t(`有 ${check.problems.length} 处问题`, `${check.problems.length} problem(s)`) : t("检查通过", "Check passed"), check.problems.length > 0);
    } catch (error) { toast(error, true); }
  });
  apply.addEventListener("click", async () => {
    try {
      const result = await post(`/api/studio/${card}/apply`);
      await load();
      toast(t(`已写回：${result.applied.join("、") || "没有改动"}`, `Applied: ${result.applied.join(", ") || "nothing"}`));
    } catch (error) { toast(error, true); }
  });
  editor.append(area, save, " ", apply);
  box.append(select, editor, problems);
  show();
}

async function load() {
  const data = await api(`/api/studio/${card}`);
  document.getElementById("card-name").textContent = data.name;
  drawFields(data.fields);
  drawGreetings(data.greetings);
  drawBooks(data.lorebooks);
  drawProject(data.project);
  translate(root);
}

load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
