// The regex-script editor beside the on/off switches of the tavern panel: find, replace, trim strings,
// placement, depth range, prompt-only / display-only, run on edit, macros in the pattern.  Only the
// fields the user touched are sent; the card file keeps everything else.
import { api, toast } from "./common.js";
import { el, postJson as post } from "./dom.js";
import { t } from "./i18n.js";

const PLACEMENTS = [[1, "用户输入", "User input"], [2, "AI 输出", "AI output"], [3, "斜杠命令", "Slash commands"],
  [5, "世界书", "World info"], [6, "推理", "Reasoning"]];
const SUBSTITUTE = [[0, "不替换", "Don't substitute"], [1, "原样替换", "Raw"], [2, "转义后替换", "Escaped"]];

function mark(form, input) {
  const dirty = () => { input.dataset.dirty = "1"; };
  input.addEventListener("input", dirty);
  input.addEventListener("change", dirty);
  return input;
}

// A form for one script (null: a new one).  onSaved gets nothing; the caller reloads its view, and
// the toast waits for it.
export function scriptForm(card, item, onSaved) {
  const script = item ? item.script : { scriptName: "", findRegex: "", replaceString: "", trimStrings: [], placement: [2],
    markdownOnly: false, promptOnly: false, runOnEdit: true, substituteRegex: 0, minDepth: null, maxDepth: null };
  const form = el("form", { class: "regex-form" });
  form.addEventListener("submit", (event) => event.preventDefault());
  const input = (field, node) => { node.dataset.field = field; node.name = field; return mark(form, node); };
  const text = (field, value) => { const node = input(field, el("input", { type: "text" })); node.value = value ?? ""; return node; };
  const area = (field, value, rows) => { const node = input(field, el("textarea", { rows: String(rows), class: "mono" })); node.value = value ?? ""; return node; };
  const box = (field, value) => { const node = input(field, el("input", { type: "checkbox" })); node.checked = Boolean(value); return node; };
  const number = (field, value) => { const node = input(field, el("input", { type: "number", min: "-1" })); node.value = value ?? ""; return node; };
  const row = (zh, en, node) => el("label", { class: "regex-field" }, el("span", { text: t(zh, en) }), node);

  const placement = el("span", { class: "regex-flags" });
  for (const [value, zh, en] of PLACEMENTS) {
    const check = input("placement", el("input", { type: "checkbox", value: String(value) }));
    check.checked = (script.placement || []).includes(value);
    placement.append(el("label", {}, check, ` ${t(zh, en)}`));
  }
  const substitute = input("substituteRegex", el("select"));
  for (const [value, zh, en] of SUBSTITUTE) substitute.append(el("option", { value: String(value), text: t(zh, en) }));
  substitute.value = String(Number(script.substituteRegex || 0));
  form.append(
    row("脚本名", "Script name", text("scriptName", script.scriptName)),
    row("查找（/正则/标志）", "Find regex (/pattern/flags)", area("findRegex", script.findRegex, 2)),
    row("替换为（$1、{{match}}）", "Replace with ($1, {{match}})", area("replaceString", script.replaceString, 3)),
    row("修剪掉（每行一个）", "Trim out (one per line)", area("trimStrings", (script.trimStrings || []).join("\n"), 2)),
    row("作用于", "Affects", placement),
    row("最小深度", "Min depth", number("minDepth", script.minDepth)),
    row("最大深度", "Max depth", number("maxDepth", script.maxDepth)),
    row("仅提示词（不改显示）", "Prompt only (alter outgoing prompt)", box("promptOnly", script.promptOnly)),
    row("仅显示（不改提示词）", "Display only (alter chat display)", box("markdownOnly", script.markdownOnly)),
    row("编辑时运行", "Run on edit", box("runOnEdit", script.runOnEdit)),
    row("查找中的宏", "Macros in find regex", substitute),
  );
  const save = el("button", { type: "button", class: "button regex-save", text: item ? t("保存脚本", "Save script") : t("添加脚本", "Add script") });
  save.addEventListener("click", async () => {
    const fields = item ? collect(form) : collect(form, true);
    if (!Object.keys(fields).length) { toast(t("没有改动", "Nothing changed")); return; }
    try {
      if (item) await post(`/api/regex/${card}/${item.index}`, { fields, name: script.scriptName || "" });
      else await post(`/api/regex/${card}`, { fields });
      // The page first shows what was saved, then says so (a toast before the reload raced it).
      await onSaved();
      toast(t("正则脚本已保存（写入角色卡）", "Regex script saved (in the card)"));
    } catch (error) { toast(error, true); }
  });
  const actions = el("div", { class: "toolbar" }, save);
  if (item) {
    const remove = el("button", { type: "button", class: "danger regex-delete", text: t("删除脚本", "Delete script") });
    remove.addEventListener("click", async () => {
      if (!confirm(t(`删除正则脚本「${script.scriptName}」？`, `Delete regex script "${script.scriptName}"?`))) return;
      try {
        await post(`/api/regex/${card}/${item.index}/delete`, { name: script.scriptName || "" });
        await onSaved();
        toast(t("正则脚本已删除", "Regex script deleted"));
      } catch (error) { toast(error, true); }
    });
    actions.append(remove);
  }
  form.append(actions);
  return form;
}

// The touched fields (all of them for a new script), in the API's types.
function collect(form, all = false) {
  const names = new Set([...form.querySelectorAll(all ? "[data-field]" : "[data-field][data-dirty='1']")].map((n) => n.dataset.field));
  const fields = {};
  for (const name of names) {
    const nodes = [...form.querySelectorAll(`[data-field='${name}']`)];
    const node = nodes[0];
    if (name === "placement") fields.placement = nodes.filter((n) => n.checked).map((n) => Number(n.value));
    else if (name === "trimStrings") fields.trimStrings = node.value;
    else if (name === "substituteRegex") fields.substituteRegex = Number(node.value);
    else if (node.type === "checkbox") fields[name] = node.checked;
    else if (node.type === "number") fields[name] = node.value.trim() === "" ? null : Number(node.value);
    else fields[name] = node.value;
  }
  return fields;
}

// All of the card's scripts, full (the switch list only carries what it shows).
export async function loadScripts(card) {
  return (await api(`/api/regex/${card}`)).scripts;
}
