// The preset panel: the label of every block of a declared preset, editable (re-routes the card).
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

const root = document.getElementById("presets");
const card = encodeURIComponent(root.dataset.card);
const select = document.getElementById("preset-select");
let stations = [];

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
}

function drawResult(result) {
  const rows = document.getElementById("pieces");
  rows.textContent = "";
  for (const piece of result.pieces) {
    const tr = document.createElement("tr");
    tr.dataset.piece = piece.id;
    const name = document.createElement("td");
    name.textContent = piece.name || piece.id;
    const where = document.createElement("td");
    where.textContent = `${piece.where} · ${piece.role}`;
    const label = document.createElement("td");
    const choice = document.createElement("select");
    choice.className = "station";
    for (const station of stations) {
      const option = document.createElement("option");
      option.value = station.id;
      option.textContent = `${station.label}（${station.id}）`;
      choice.append(option);
    }
    choice.value = piece.station;
    choice.addEventListener("change", async () => {
      try {
        drawResult(await post(`/api/presets/${card}/${encodeURIComponent(select.value)}/relabel`, { piece: piece.id, station: choice.value }));
        toast(t("已改标签并重新分流", "Relabelled and routed again"));
      } catch (error) { toast(error, true); }
    });
    label.append(choice);
    const note = document.createElement("td");
    note.textContent = piece.note + (result.defaulted.includes(piece.id) ? t("（未标注，暂按 writing）", " (unlabelled: writing)") : "");
    tr.append(name, where, label, note);
    rows.append(tr);
  }
  const warnings = document.getElementById("preset-warnings");
  warnings.textContent = "";
  for (const warning of result.warnings) { const li = document.createElement("li"); li.textContent = `⚠ ${warning}`; warnings.append(li); }
  warnings.hidden = result.warnings.length === 0;
}

async function load() {
  const data = await api(`/api/presets/${card}`);
  stations = data.stations;
  select.textContent = "";
  for (const name of data.presets) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name;
    select.append(option);
  }
  if (data.active) select.value = data.active;
  const list = document.getElementById("stations");
  list.textContent = "";
  for (const station of stations) {
    const dt = document.createElement("dt"); dt.textContent = `${station.label}（${station.id}）`;
    const dd = document.createElement("dd"); dd.textContent = `${station.about} → ${station.goes_to}`;
    list.append(dt, dd);
  }
  translate(root);
}

document.getElementById("declare").addEventListener("click", async () => {
  if (!select.value) { toast(t("资料库里还没有预设：先导入一个", "No presets in the library yet: import one"), true); return; }
  try { drawResult(await post(`/api/presets/${card}/${encodeURIComponent(select.value)}/declare`)); }
  catch (error) { toast(error, true); }
});
document.getElementById("remove").addEventListener("click", async () => {
  try {
    await post(`/api/presets/${card}/remove`);
    document.getElementById("pieces").textContent = "";
    toast(t("已撤下预设", "Preset taken off"));
  } catch (error) { toast(error, true); }
});

load().then(() => { document.body.dataset.ready = "1"; }).catch((error) => toast(error, true));
