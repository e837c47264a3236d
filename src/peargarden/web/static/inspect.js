// The prompt inspector: per message slot, role and tokens of the exact request of a beat (or of a
// dry run), and a diff between two sources (two beats, tavern against stage).
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

const root = document.getElementById("inspect");
const base = `/api/inspect/${encodeURIComponent(root.dataset.card)}/${encodeURIComponent(root.dataset.chat)}`;
const SLOTS = { system: ["系统", "system"], history: ["历史", "history"], beat_input: ["本拍输入", "beat input"],
  tool_round: ["工具轮", "tool round"], injection: ["注入", "injection"] };

function cell(text, cls) {
  const td = document.createElement("td");
  if (cls) td.className = cls;
  td.textContent = text;
  return td;
}

function drawRound(round, number, count) {
  const panel = document.createElement("div");
  panel.className = "panel round";
  const title = document.createElement("h2");
  title.textContent = count > 1 ? t(`第 ${number} 次调用`, `Call ${number}`) : t("请求", "Request");
  // Story memory's side calls (scene notes, compaction) are recorded with the beat; say which they are.
  const purpose = { scene_notes: ["场记", "scene notes"], compaction: ["压缩摘要", "compaction"],
    resident_memory: ["常驻记忆", "resident memory"] }[round.purpose];
  if (purpose) { title.textContent += ` · ${t(...purpose)}`; panel.dataset.purpose = round.purpose; }
  const meta = document.createElement("p");
  meta.className = "hint";
  const sampler = Object.entries(round.sampler || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
  meta.textContent = `${round.model} · ${round.total_tokens} tokens · ${t("思考", "thinking")} ${round.thinking}`
    + ` · ${t("工具", "tools")}: ${round.tools.join(", ") || "—"}${sampler ? ` · ${sampler}` : ""}`;
  const table = document.createElement("table");
  table.className = "ledger";
  const head = document.createElement("tr");
  for (const [zh, en] of [["#", "#"], ["位置", "slot"], ["角色", "role"], ["tokens", "tokens"], ["内容", "content"]]) {
    const th = document.createElement("th");
    th.textContent = t(zh, en);
    head.append(th);
  }
  table.append(head);
  round.messages.forEach((message, index) => {
    const tr = document.createElement("tr");
    tr.className = `row ${message.slot}`;
    const slot = document.createElement("td");
    const tag = document.createElement("span");
    tag.className = "slot";
    const [zh, en] = SLOTS[message.slot] || [message.slot, message.slot];
    tag.textContent = t(zh, en);
    slot.append(tag);
    const content = document.createElement("td");
    const text = document.createElement("span");
    text.className = "content";
    text.textContent = message.content;
    content.append(text);
    tr.append(cell(String(index + 1)), slot, cell(message.role), cell(String(message.tokens), "num"), content);
    table.append(tr);
  });
  panel.append(title, meta, table);
  return panel;
}

async function show() {
  const source = document.getElementById("source").value;
  const box = document.getElementById("rounds");
  const warnings = document.getElementById("inspect-warnings");
  box.textContent = "";
  try {
    const result = await api(`${base}?source=${encodeURIComponent(source)}`);
    result.rounds.forEach((round, i) => box.append(drawRound(round, i + 1, result.rounds.length)));
    const total = result.rounds.reduce((sum, round) => sum + round.total_tokens, 0);
    document.getElementById("total").textContent = `${total} tokens`;
    warnings.textContent = "";
    for (const warning of result.warnings) {
      const li = document.createElement("li");
      li.textContent = `⚠ ${warning}`;
      warnings.append(li);
    }
    warnings.hidden = result.warnings.length === 0;
  } catch (error) {
    const note = document.createElement("p");
    note.className = "error";
    note.textContent = error.message;
    box.append(note);
  }
  document.body.dataset.source = source;
}

async function diff() {
  const a = document.getElementById("diff-a").value, b = document.getElementById("diff-b").value;
  const box = document.getElementById("diff");
  try {
    const result = await api(`${base}/diff?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
    box.textContent = "";
    for (const line of (result.diff || t("（没有不同）", "(no difference)")).split("\n")) {
      const span = document.createElement("span");
      span.className = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
      span.textContent = line + "\n";
      box.append(span);
    }
    box.hidden = false;
  } catch (error) { toast(error, true); }
}

document.getElementById("source").addEventListener("change", show);
document.getElementById("diff-run").addEventListener("click", diff);
translate(root);
// A chat without a beat yet starts with the dry run of its mode.
api(`${base}?source=last`).catch(() => { document.getElementById("source").value = "dry:stage"; })
  .finally(() => show().then(() => { document.body.dataset.ready = "1"; }));
