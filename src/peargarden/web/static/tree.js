// A picture of the branch tree: one dot per entry, lines to the parent, the active path darker.
// Clicking a dot moves the chat there (goto).
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const ROW = 22, STEP = 14, LEFT = 10;

function el(name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

export function drawTree(box, rows, leaf, onPick) {
  box.textContent = "";
  const where = new Map();
  rows.forEach((row, i) => where.set(row.id, { x: LEFT + row.depth * STEP, y: 12 + i * ROW }));
  const width = Math.max(200, ...[...where.values()].map((p) => p.x + 260));
  const svg = el("svg", { width, height: 12 + rows.length * ROW, class: "tree-svg", role: "img" });
  for (const row of rows) {
    const p = where.get(row.id), q = row.parent && where.get(row.parent);
    if (q) svg.append(el("path", { d: `M${q.x},${q.y} V${p.y} H${p.x}`, class: row.on_path ? "edge on" : "edge" }));
  }
  for (const row of rows) {
    const p = where.get(row.id);
    const group = el("g", { class: `node ${row.role}${row.on_path ? " on" : ""}${row.id === leaf ? " leaf" : ""}`,
      "data-id": row.id, tabindex: "0" });
    group.append(el("circle", { cx: p.x, cy: p.y, r: row.id === leaf ? 5 : 4 }));
    const label = el("text", { x: p.x + 9, y: p.y + 4 });
    const kin = (row.sibling[1] > 1 ? ` (${row.sibling[0]}/${row.sibling[1]})` : "") + (row.more ? " …" : "");
    label.textContent = `${row.role === "user" ? t("你：", "You: ") : ""}${row.label}${kin}`;
    group.append(label);
    const title = el("title", {});
    title.textContent = row.label;
    group.append(title);
    group.addEventListener("click", () => onPick(row.id));
    svg.append(group);
  }
  box.append(svg);
}
