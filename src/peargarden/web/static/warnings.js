// The warnings above a chat (a beat's, and what reading the chat found), each with the fix the page can
// make for it in one click when the server names one (``warning_fixes``: text → fix).  ``system-file``:
// the bundled SYSTEM.md written into the data folder (a vault snapshot first), with an undo.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

function post(path, body = {}) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function button(label, className, onClick) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = className;
  node.textContent = label;
  node.addEventListener("click", onClick);
  return node;
}

// What a fixed warning leaves in the list: a line and its undo (kept across redraws until undone).
function fixedNote(box, warning, text, undo) {
  const li = document.createElement("li");
  li.className = "fixed";
  li.append(`✓ ${text} `, button(t("撤销", "Undo"), "link undo-fix", async () => {
    try {
      await undo();
      box._gone.delete(warning);
      box._notes = box._notes.filter((note) => note !== li);
      li.remove();
      toast(t("已撤销", "Undone"));
      warningList(box, ...box._last);
    } catch (error) { toast(error, true); }
  }));
  return li;
}

const FIXERS = {
  "system-file": (box, warning) => button(t("写入随包的 SYSTEM.md", "Write the bundled SYSTEM.md"), "secondary fix-warning", async () => {
    try {
      const { snapshot } = await post("/api/system-file");
      box._gone.add(warning);
      box._notes.push(fixedNote(box, warning,
        t("随包的 SYSTEM.md 已写进数据文件夹（保险库留有之前的快照）。", "The bundled SYSTEM.md is in the data folder (the vault keeps a snapshot of before)."),
        () => post("/api/system-file/undo", { snapshot })));
      warningList(box, ...box._last);
    } catch (error) { toast(error, true); }
  }),
};

export function warningList(box, warnings, fixes = {}) {
  box._gone ??= new Set();
  box._notes ??= [];
  box._last = [warnings, fixes];
  const all = [...new Set(warnings)].filter((warning) => !box._gone.has(warning));
  box.textContent = "";
  for (const warning of all) {
    const li = document.createElement("li");
    li.textContent = `⚠ ${warning}`;
    const fixer = FIXERS[fixes[warning]];
    if (fixer) li.append(" ", fixer(box, warning));
    box.append(li);
  }
  box.append(...box._notes);
  box.hidden = box.children.length === 0;
}
