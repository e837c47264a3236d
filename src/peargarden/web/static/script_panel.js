// The chat page's script panel: what a card's frames (its status bars and its scripts) said that the
// reader should know — an error their code let escape, a TavernHelper function that does not exist
// here, a refused one, a script stopped — one line per thing with how many times, never silently.
// Folded under the warnings; it shows itself with the first line.  <body data-script-notes> counts
// every occurrence (the tests read it).
import { t } from "./i18n.js";

const lines = new Map();  // key → {who, kind, text, count}
const counted = new Map();  // "frame|kind|text" → the count that frame last said
let panel = null;

const KINDS = {
  error: () => t("出错", "error"),
  unknown: () => t("没有这个函数", "no such function"),
  refused: () => t("不可用", "not available"),
  stopped: () => t("已停止", "stopped"),
  slow: () => t("太慢", "too slow"),
  blocked: () => t("未加载", "not loaded"),
};

function box() {
  if (panel && panel.isConnected) return panel;
  panel = document.createElement("details");
  panel.id = "script-panel";
  panel.className = "script-panel";
  const summary = document.createElement("summary");
  const list = document.createElement("ul");
  panel.append(summary, list);
  const anchor = document.getElementById("warnings");
  if (anchor) anchor.after(panel); else document.body.append(panel);
  return panel;
}

function draw() {
  const root = box();
  const total = [...lines.values()].reduce((sum, line) => sum + line.count, 0);
  root.querySelector("summary").textContent = t(`脚本提示 ${lines.size} 条（共 ${total} 次）`,
    `Script notes: ${lines.size} (${total} in all)`);
  const list = root.querySelector("ul");
  list.textContent = "";
  for (const line of lines.values()) {
    const item = document.createElement("li");
    item.className = `script-note ${line.kind}`;
    const times = line.count > 1 ? ` ×${line.count}` : "";
    item.textContent = `${line.who}：${(KINDS[line.kind] || (() => line.kind))()} — ${line.text}${times}`;
    list.append(item);
  }
  document.body.dataset.scriptNotes = String(total);
}

// *frame* (any object standing for one frame) said that *kind*/*text* happened *count* times in all.
export function scriptNote(frame, who, kind, text, count = 1) {
  const frameKey = `${frame.id}|${kind}|${text}`;
  const before = counted.get(frameKey) || 0;
  const now = Math.max(before, Number(count) || 1);
  counted.set(frameKey, now);
  const key = `${who}|${kind}|${text}`;
  const line = lines.get(key) || { who, kind, text, count: 0 };
  line.count += now - before;
  lines.set(key, line);
  draw();
}

let nextId = 0;
// A name for a frame's notes (frames of one kind and message share their lines).
export function frameIdentity() { nextId += 1; return { id: nextId }; }
