// The lorebook editor: every library book and every card's supplement book; create and delete books,
// mount them on cards, add, edit and delete entries with every field of SillyTavern's world-info editor.
// Only the fields the user touched are sent, so everything else in the file stays as it was.
import { api, toast } from "./common.js";
import { el, postJson as post } from "./dom.js";
import { t, translate } from "./i18n.js";

const root = document.getElementById("lore");
const view = document.getElementById("book-view");
let state = { books: [], cards: [] };
let current = null; // the open book: {kind, name, file, entries, mounted_on}

const POSITIONS = [[0, "角色定义之前", "Before Char Defs"], [1, "角色定义之后", "After Char Defs"],
  [5, "示例消息之前", "Before Example Messages"], [6, "示例消息之后", "After Example Messages"],
  [2, "作者注释之前", "Top of Author's Note"], [3, "作者注释之后", "Bottom of Author's Note"],
  [4, "按深度插入", "@ Depth"], [7, "出口（outlet）", "Outlet"]];
const ROLES = [[0, "系统", "System"], [1, "用户", "User"], [2, "助手", "Assistant"]];
const LOGICS = [[0, "含任一（AND ANY）", "AND ANY"], [3, "含全部（AND ALL）", "AND ALL"],
  [2, "都不含（NOT ANY）", "NOT ANY"], [1, "不全含（NOT ALL）", "NOT ALL"]];
const STRATEGIES = [["constant", "常驻（蓝）", "Constant (blue)"], ["normal", "关键词（绿）", "Normal (green)"], ["vectorized", "向量", "Vectorized"]];
const TRIGGERS = [["normal", "普通", "Normal"], ["continue", "继续", "Continue"], ["impersonate", "代写", "Impersonate"],
  ["swipe", "滑动", "Swipe"], ["regenerate", "重新生成", "Regenerate"], ["quiet", "静默", "Quiet"]];
const MATCHES = [["matchPersonaDescription", "人设描述", "Persona Description"], ["matchCharacterDescription", "角色描述", "Character Description"],
  ["matchCharacterPersonality", "角色性格", "Character Personality"], ["matchCharacterDepthPrompt", "角色注释", "Character's Note"],
  ["matchScenario", "场景", "Scenario"], ["matchCreatorNotes", "作者备注", "Creator's Notes"]];

function bookUrl(book) { return `/api/lore/${book.kind}/${encodeURIComponent(book.name)}`; }

function strategy(entry) { return entry.constant === true ? "constant" : entry.vectorized === true ? "vectorized" : "normal"; }

// ----- the book list ------------------------------------------------------------------------------

function drawBooks() {
  const list = document.getElementById("book-list");
  list.textContent = "";
  for (const book of state.books) {
    const label = book.kind === "supplement" ? `${book.name} · ${t("补充设定集", "supplement")}` : book.name;
    const open = el("button", { type: "button", class: "link book-open", text: label });
    open.addEventListener("click", () => openBook(book.kind, book.name));
    const count = el("span", { class: "hint", text: book.entries === null ? t(" · 读不出", " · unreadable") : ` · ${book.entries}` });
    const li = el("li", { "data-kind": book.kind, "data-book": book.name }, open, count);
    if (current && current.kind === book.kind && current.name === book.name) li.classList.add("on");
    list.append(li);
  }
  if (!state.books.length) list.append(el("li", { class: "hint", text: t("（资料库里还没有世界书）", "(no lorebooks yet)") }));
}

async function loadBooks() {
  state = await api("/api/lore");
  drawBooks();
}

// ----- one book -----------------------------------------------------------------------------------

async function openBook(kind, name) {
  try {
    current = await api(`/api/lore/${kind}/${encodeURIComponent(name)}`);
    history.replaceState(null, "", `/lore?${kind}=${encodeURIComponent(name)}`);
    drawBook();
    drawBooks();
  } catch (error) { toast(error, true); }
}

function drawBook(openUid = null) {
  view.textContent = "";
  const head = el("div", { class: "panel" });
  head.append(el("h2", { text: current.kind === "supplement" ? `${current.name} · ${t("补充设定集", "supplement book")}` : current.name }),
    el("p", { class: "hint", text: current.file }));
  if (current.kind === "book") {
    const mounts = el("div", { class: "mounts", id: "mounts" });
    mounts.append(el("span", { text: t("挂在这些卡上：", "Mounted on: ") }));
    for (const card of state.cards) {
      const box = el("input", { type: "checkbox", "data-card": card });
      box.checked = current.mounted_on.includes(card);
      box.addEventListener("change", async () => {
        try {
          current = await post(`${bookUrl(current)}/mount`, { card, mounted: box.checked });
          await loadBooks();
          toast(box.checked ? t(`已挂到「${card}」`, `Mounted on "${card}"`) : t(`已从「${card}」卸下`, `Unmounted from "${card}"`));
        } catch (error) { box.checked = !box.checked; toast(error, true); }
      });
      mounts.append(el("label", { class: "mount" }, box, ` ${card}`));
    }
    const remove = el("button", { type: "button", class: "danger", id: "delete-book", text: t("删除这本书", "Delete this book") });
    remove.addEventListener("click", deleteBook);
    head.append(mounts, remove);
  }
  const add = el("button", { type: "button", class: "button", id: "new-entry", text: t("新条目", "New entry") });
  add.addEventListener("click", addEntry);
  const filter = el("input", { type: "search", id: "entry-filter", placeholder: t("筛选：标题、关键词、内容", "Filter: title, keys, content") });
  filter.addEventListener("input", () => applyFilter(filter.value));
  head.append(el("div", { class: "toolbar" }, add, filter));
  view.append(head);
  const list = el("div", { class: "panel", id: "entries" });
  if (!current.entries.length) list.append(el("p", { class: "hint", text: t("（没有条目）", "(no entries)") }));
  for (const item of current.entries) list.append(entryRow(item, String(item.uid) === String(openUid)));
  view.append(list);
  translate(root);
}

function applyFilter(text) {
  const needle = text.trim().toLowerCase();
  for (const row of view.querySelectorAll(".wi-entry")) {
    row.hidden = Boolean(needle) && !row.dataset.search.includes(needle);
  }
}

async function deleteBook() {
  if (!confirm(t(`删除世界书「${current.name}」？保险库会先存一份快照，可以恢复。`, `Delete lorebook "${current.name}"? The vault keeps a snapshot first.`))) return;
  try {
    const result = await post(`${bookUrl(current)}/delete`);
    current = null;
    view.textContent = "";
    // The list is reloaded before the message, so what the toast says is already what the page shows.
    await loadBooks();
    toast(t(`已删除「${result.deleted}」（快照 ${result.snapshot}）`, `Deleted "${result.deleted}" (snapshot ${result.snapshot})`));
  } catch (error) { toast(error, true); }
}

async function addEntry() {
  try {
    const result = await post(`${bookUrl(current)}/entries`, { fields: {} });
    current = result.book;
    drawBook(result.uid);
    await loadBooks();
    toast(t("已新建条目", "Entry created"));
  } catch (error) { toast(error, true); }
}

// ----- one entry ----------------------------------------------------------------------------------

function entryRow(item, open) {
  const entry = item.entry;
  const row = el("details", { class: `wi-entry ${strategy(entry)}${entry.disable ? " off" : ""}`, "data-uid": item.uid });
  row.dataset.search = `${entry.comment || ""}\n${(entry.key || []).join(",")}\n${entry.content || ""}`.toLowerCase();
  const toggle = el("input", { type: "checkbox", class: "switch entry-switch", "aria-label": t("启用", "Enabled") });
  toggle.checked = !entry.disable;
  toggle.addEventListener("click", (event) => event.stopPropagation());
  toggle.addEventListener("change", () => save(item, { disable: !toggle.checked }, t("已保存开关", "Switch saved")));
  const title = el("span", { class: "wi-title", text: entry.comment || t("（无标题）", "(untitled)") });
  const keys = el("span", { class: "wi-keys", text: entry.constant ? t("常驻", "constant") : (entry.key || []).join(", ") });
  const meta = el("span", { class: "wi-meta", text: `#${item.uid} · ${t("顺序", "order")} ${entry.order ?? "—"}` });
  row.append(el("summary", {}, toggle, " ", title, keys, meta));
  row.addEventListener("toggle", () => { if (row.open && !row.querySelector("form")) row.append(entryForm(item)); });
  if (open) row.open = true;
  return row;
}

// Form controls carry data-field (the entry field) and mark themselves changed when touched.
function control(form, field, input) {
  input.dataset.field = field;
  input.name = field;
  input.addEventListener("input", () => { input.dataset.dirty = "1"; form.classList.add("dirty"); });
  input.addEventListener("change", () => { input.dataset.dirty = "1"; form.classList.add("dirty"); });
  return input;
}

function textInput(value) { const input = el("input", { type: "text" }); input.value = value ?? ""; return input; }
function numberInput(value, attrs = {}) { const input = el("input", { type: "number", ...attrs }); input.value = value ?? ""; return input; }
function checkbox(value) { const input = el("input", { type: "checkbox" }); input.checked = Boolean(value); return input; }
function select(options, value) {
  const input = el("select");
  for (const [v, zh, en] of options) input.append(el("option", { value: String(v), text: t(zh, en) }));
  input.value = String(value ?? "");
  return input;
}
function tristate(value) {
  return select([["", "跟随全局", "Use global"], ["true", "是", "Yes"], ["false", "否", "No"]], value === null || value === undefined ? "" : String(value));
}

function field(label, en, input, cls = "") {
  return el("label", { class: `wi-field ${cls}` }, el("span", { text: t(label, en) }), input);
}

function entryForm(item) {
  const entry = item.entry;
  const form = el("form", { class: "wi-form" });
  form.addEventListener("submit", (event) => event.preventDefault());
  const c = (name, input) => control(form, name, input);

  const comment = c("comment", textInput(entry.comment));
  const strat = c("strategy", select(STRATEGIES, strategy(entry)));
  const key = c("key", el("textarea", { rows: "2", class: "keys" }));
  key.value = (entry.key || []).join(", ");
  const logic = c("selectiveLogic", select(LOGICS, entry.selectiveLogic ?? 0));
  const secondary = c("keysecondary", el("textarea", { rows: "2", class: "keys" }));
  secondary.value = (entry.keysecondary || []).join(", ");
  const selective = c("selective", checkbox(entry.selective));
  const content = c("content", el("textarea", { rows: "8", class: "wi-content" }));
  content.value = entry.content ?? "";

  const position = c("position", select(POSITIONS, entry.position ?? 0));
  const role = c("role", select(ROLES, entry.role ?? 0));
  const depth = c("depth", numberInput(entry.depth, { min: "0" }));
  const outlet = c("outletName", textInput(entry.outletName));
  const roleField = field("角色", "Role", role, "at-depth");
  const depthField = field("深度", "Depth", depth, "at-depth");
  const outletField = field("出口名", "Outlet name", outlet, "outlet");
  const placement = () => {
    const at = Number(position.value);
    roleField.hidden = at !== 4; depthField.hidden = at !== 4; outletField.hidden = at !== 7;
  };
  position.addEventListener("change", placement);
  placement();
  const order = c("order", numberInput(entry.order));
  const probability = c("probability", numberInput(entry.probability, { min: "0", max: "100" }));
  const useProbability = c("useProbability", checkbox(entry.useProbability));

  const group = c("group", textInput(entry.group));
  const groupOverride = c("groupOverride", checkbox(entry.groupOverride));
  const groupWeight = c("groupWeight", numberInput(entry.groupWeight, { min: "1" }));
  const groupScoring = c("useGroupScoring", tristate(entry.useGroupScoring));

  const scanDepth = c("scanDepth", numberInput(entry.scanDepth, { min: "0", max: "1000", placeholder: t("全局", "global") }));
  const caseSensitive = c("caseSensitive", tristate(entry.caseSensitive));
  const wholeWords = c("matchWholeWords", tristate(entry.matchWholeWords));

  const exclude = c("excludeRecursion", checkbox(entry.excludeRecursion));
  const prevent = c("preventRecursion", checkbox(entry.preventRecursion));
  const delayRec = c("delayUntilRecursion", checkbox(entry.delayUntilRecursion));
  const level = c("delayUntilRecursion", numberInput(typeof entry.delayUntilRecursion === "number" && entry.delayUntilRecursion >= 1 ? entry.delayUntilRecursion : "", { min: "1", class: "level" }));
  level.dataset.role = "level";

  const sticky = c("sticky", numberInput(entry.sticky, { min: "0" }));
  const cooldown = c("cooldown", numberInput(entry.cooldown, { min: "0" }));
  const delay = c("delay", numberInput(entry.delay, { min: "0" }));

  const ignoreBudget = c("ignoreBudget", checkbox(entry.ignoreBudget));
  const automation = c("automationId", textInput(entry.automationId));
  const triggers = el("span", { class: "wi-flags" });
  for (const [value, zh, en] of TRIGGERS) {
    const box = c("triggers", checkbox((entry.triggers || []).includes(value)));
    box.value = value;
    triggers.append(el("label", {}, box, ` ${t(zh, en)}`));
  }
  const matches = el("span", { class: "wi-flags" });
  for (const [name, zh, en] of MATCHES) matches.append(el("label", {}, c(name, checkbox(entry[name])), ` ${t(zh, en)}`));

  const saveButton = el("button", { type: "button", class: "button wi-save", text: t("保存条目", "Save entry") });
  saveButton.addEventListener("click", () => save(item, collect(form), t("条目已保存", "Entry saved")));
  const remove = el("button", { type: "button", class: "danger wi-delete", text: t("删除条目", "Delete entry") });
  remove.addEventListener("click", () => removeEntry(item));

  const group1 = (title, en, ...fields) => el("fieldset", {}, el("legend", { text: t(title, en) }), ...fields);
  form.append(
    group1("内容", "Content", field("标题", "Title / memo", comment), field("策略", "Strategy", strat),
      field("主关键词（逗号分隔）", "Primary keywords (comma separated)", key, "wide"),
      field("次要关键词逻辑", "Secondary logic", logic), field("启用次要关键词（selective）", "Selective", selective),
      field("次要关键词（可选过滤）", "Optional filter keywords", secondary, "wide"), field("内容", "Content", content, "wide")),
    group1("插入", "Insertion", field("位置", "Position", position), roleField, depthField, outletField,
      field("顺序", "Order", order), field("触发概率 %", "Trigger %", probability), field("使用概率", "Use probability", useProbability)),
    group1("包含组", "Inclusion group", field("组名（逗号分隔）", "Group(s)", group), field("组内优先", "Prioritize", groupOverride),
      field("组权重", "Group weight", groupWeight), field("组评分", "Group scoring", groupScoring)),
    group1("匹配", "Matching", field("扫描深度", "Scan depth", scanDepth), field("区分大小写", "Case-sensitive", caseSensitive),
      field("整词匹配", "Whole words", wholeWords), field("也扫描", "Also match", matches, "wide")),
    group1("递归", "Recursion", field("不可被递归激活", "Non-recursable", exclude), field("阻止进一步递归", "Prevent further recursion", prevent),
      field("延迟到递归", "Delay until recursion", delayRec), field("递归层级", "Recursion level", level)),
    group1("定时效果", "Timed effects", field("黏附（条消息）", "Sticky", sticky), field("冷却", "Cooldown", cooldown), field("延迟", "Delay", delay)),
    group1("其他", "Other", field("不计预算", "Ignore budget", ignoreBudget), field("自动化 ID", "Automation ID", automation),
      field("生成类型过滤", "Triggers", triggers, "wide")),
    el("div", { class: "toolbar" }, saveButton, remove),
  );
  return form;
}

// The changed fields, in the types the API takes (blank numbers of "optional" fields are null).
function collect(form) {
  const changes = {};
  const nullable = new Set(["probability", "scanDepth", "sticky", "cooldown", "delay"]);
  const fields = new Set([...form.querySelectorAll("[data-dirty='1']")].map((input) => input.dataset.field));
  for (const name of fields) {
    const inputs = [...form.querySelectorAll(`[data-field='${name}']`)];
    const input = inputs[0];
    if (name === "triggers") {
      changes.triggers = inputs.filter((box) => box.checked).map((box) => box.value);
    } else if (name === "delayUntilRecursion") {
      const box = inputs.find((i) => i.type === "checkbox");
      const level = inputs.find((i) => i.dataset.role === "level");
      changes.delayUntilRecursion = !box.checked ? false : level.value.trim() ? Number(level.value) : true;
    } else if (input.type === "checkbox") {
      changes[name] = input.checked;
    } else if (input.type === "number") {
      changes[name] = input.value.trim() === "" ? (nullable.has(name) ? null : input.value) : Number(input.value);
    } else if (["position", "role", "selectiveLogic"].includes(name)) {
      changes[name] = Number(input.value);
    } else if (["useGroupScoring", "caseSensitive", "matchWholeWords"].includes(name)) {
      changes[name] = input.value === "" ? null : input.value === "true";
    } else {
      changes[name] = input.value;
    }
  }
  return changes;
}

async function save(item, fields, message) {
  if (!Object.keys(fields).length) { toast(t("没有改动", "Nothing changed")); return; }
  try {
    current = await post(`${bookUrl(current)}/entries/${encodeURIComponent(item.slot)}`, { fields, fp: item.fp });
    drawBook(item.uid);
    await loadBooks();
    toast(message);
  } catch (error) { toast(error, true); }
}

async function removeEntry(item) {
  if (!confirm(t(`删除条目 #${item.uid}？`, `Delete entry #${item.uid}?`))) return;
  try {
    current = await post(`${bookUrl(current)}/entries/${encodeURIComponent(item.slot)}/delete`);
    drawBook();
    await loadBooks();
    toast(t("已删除条目", "Entry deleted"));
  } catch (error) { toast(error, true); }
}

document.getElementById("new-book").addEventListener("click", async () => {
  const input = document.getElementById("new-book-name");
  try {
    current = await post("/api/lore", { name: input.value });
    input.value = "";
    await loadBooks();
    drawBook();
    drawBooks();
    toast(t(`已新建世界书「${current.name}」`, `Lorebook "${current.name}" created`));
  } catch (error) { toast(error, true); }
});

async function start() {
  await loadBooks();
  const params = new URLSearchParams(location.search);
  if (params.get("book")) await openBook("book", params.get("book"));
  else if (params.get("supplement")) await openBook("supplement", params.get("supplement"));
}

start().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
