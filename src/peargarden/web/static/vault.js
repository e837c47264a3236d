// The vault: snapshots (newest first), what changed since a snapshot, and restore (the state
// before a restore is snapshotted first, so a restore can itself be undone).
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

const rows = document.getElementById("snapshot-rows");
let snapshots = [];

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function button(label, en, cls, handler) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  b.textContent = t(label, en);
  b.addEventListener("click", handler);
  return b;
}

async function showDiff(from, to) {
  const panel = document.getElementById("diff-panel");
  const result = await api(`/api/vault/diff?a=${encodeURIComponent(from)}&b=${encodeURIComponent(to)}`);
  document.getElementById("diff-title").textContent = `${from} → ${to}`;
  const box = document.getElementById("vault-diff");
  box.textContent = "";
  const groups = [["added", "新增", "added", "add"], ["removed", "删除", "removed", "del"], ["changed", "改动", "changed", ""]];
  let any = false;
  for (const [key, zh, en, cls] of groups) {
    for (const path of result[key]) {
      any = true;
      const line = document.createElement("div");
      line.className = `vault-change ${key}`;
      const label = document.createElement("span");
      label.className = `slot ${cls}`;
      label.textContent = t(zh, en);
      const link = document.createElement("button");
      link.type = "button";
      link.className = "link";
      link.textContent = path;
      link.addEventListener("click", async () => {
        const file = await api(`/api/vault/diff?a=${encodeURIComponent(from)}&b=${encodeURIComponent(to)}&path=${encodeURIComponent(path)}`);
        const pre = document.getElementById("vault-file-diff");
        pre.textContent = file.text || t("（无文本差异）", "(no text diff)");
        pre.hidden = false;
      });
      line.append(label, " ", link);
      box.append(line);
    }
  }
  if (!any) box.textContent = t("没有不同。", "No differences.");
  document.getElementById("vault-file-diff").hidden = true;
  panel.hidden = false;
}

function draw() {
  rows.textContent = "";
  snapshots.forEach((snap, i) => {
    const tr = document.createElement("tr");
    tr.dataset.id = snap.id;
    const cells = [String(snapshots.length - i), `${snap.id}`, snap.reason, String(snap.files)];
    for (const text of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    const actions = document.createElement("td");
    if (i > 0) actions.append(button("与最新对比", "Diff to newest", "link diff", () => showDiff(snap.id, snapshots[0].id).catch((e) => toast(e.message, true))));
    actions.append(button("恢复", "Restore", "secondary restore", async () => {
      if (!confirm(t(`把数据文件夹恢复到快照 ${snap.id}？当前状态会先存一个快照。`, `Restore snapshot ${snap.id}? The current state is snapshotted first.`))) return;
      try {
        const result = await post("/api/vault/restore", { snapshot: snap.id });
        toast(t(`已恢复：写回 ${result.written.length} 个文件，删除 ${result.removed.length} 个`,
          `Restored: ${result.written.length} written, ${result.removed.length} removed`));
        await load();
      } catch (error) { toast(error, true); }
    }));
    tr.append(actions);
    rows.append(tr);
  });
  if (!snapshots.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 5;
    td.textContent = t("还没有快照。", "No snapshots yet.");
    tr.append(td);
    rows.append(tr);
  }
}

async function load() {
  snapshots = await api("/api/vault");
  draw();
  translate();
}

document.getElementById("snapshot-now").addEventListener("click", async () => {
  try {
    const result = await post("/api/vault/snapshot", { reason: "web" });
    toast(result.snapshot ? t(`已存快照 ${result.snapshot.id}`, `Snapshot ${result.snapshot.id}`)
      : t("没有变化，未新建快照", "Nothing changed; no new snapshot"));
    await load();
  } catch (error) { toast(error, true); }
});

load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
