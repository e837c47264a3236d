// The character list at scale: search (name, creator, tags, creator notes; the server folds width
// and case, so 「青梧」 and ＱＩＮＧ find what they should), sort (name, last chat, date added),
// filter by a tag or by favourites, a star per card and the user's own tags.  The server answers
// with the cards in order; the tiles already on the page are shown, hidden and moved to match.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const grid = document.getElementById("card-grid");
const search = document.getElementById("card-search");
const sort = document.getElementById("card-sort");
const favOnly = document.getElementById("card-fav");
const count = document.getElementById("card-count");
const tiles = new Map([...grid.querySelectorAll(".card-tile")].map((tile) => [tile.dataset.folder, tile]));
const json = (body) => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
let tag = "";
let asked = 0;

sort.value = localStorage.getItem("pear-card-sort") || "name";

async function apply() {
  const params = new URLSearchParams({ q: search.value.trim(), sort: sort.value });
  if (tag) params.set("tag", tag);
  if (favOnly.checked) params.set("fav", "true");
  const mine = ++asked;
  try {
    const found = await api(`/api/cards?${params}`);
    if (mine !== asked) return;  // a newer question is on its way
    const shown = new Set();
    for (const card of found) {  // in the server's order
      const tile = tiles.get(card.folder);
      if (!tile) continue;
      tile.hidden = false;
      grid.append(tile);
      shown.add(card.folder);
    }
    for (const [folder, tile] of tiles) if (!shown.has(folder)) tile.hidden = true;
    count.textContent = t(`${shown.size} / ${tiles.size} 张卡`, `${shown.size} of ${tiles.size} cards`);
    grid.dataset.shown = String(shown.size);
  } catch (error) { toast(error, true); }
}

let typing = null;
search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(apply, 150); });
sort.addEventListener("change", () => { localStorage.setItem("pear-card-sort", sort.value); apply(); });
favOnly.addEventListener("change", apply);
for (const chip of document.querySelectorAll("#card-tags .tag-chip")) {
  chip.addEventListener("click", () => {
    tag = tag === chip.dataset.tag ? "" : chip.dataset.tag;
    for (const other of document.querySelectorAll("#card-tags .tag-chip")) other.classList.toggle("on", other.dataset.tag === tag);
    apply();
  });
}

function drawMarks(tile, card) {
  tile.classList.toggle("favorite", card.favorite);
  tile.dataset.ownTags = card.own_tags.join("，");
  const star = tile.querySelector(".card-star");
  star.textContent = card.favorite ? "★" : "☆";
  star.setAttribute("aria-pressed", String(card.favorite));
  let list = tile.querySelector(".card-tag-list");
  if (!list) {
    list = document.createElement("span");
    list.className = "card-tag-list";
    tile.querySelector(".card-meta").after(list);
  }
  list.replaceChildren(...card.tags.map((name) => Object.assign(document.createElement("span"), { className: "tag", textContent: name })));
}

for (const [folder, tile] of tiles) {
  const url = `/api/cards/${encodeURIComponent(folder)}/marks`;
  tile.querySelector(".card-star").addEventListener("click", async () => {
    try { drawMarks(tile, await api(url, json({ favorite: !tile.classList.contains("favorite") }))); }
    catch (error) { toast(error, true); }
  });
  tile.querySelector(".card-own-tags")?.addEventListener("click", async () => {
    const text = prompt(t("你的标签（用逗号分开；卡自带的标签不在这里改）", "Your tags (comma-separated; the card's own stay)"),
      tile.dataset.ownTags || "");
    if (text === null) return;
    try { drawMarks(tile, await api(url, json({ tags: text.split(/[,，、;；]/) }))); }
    catch (error) { toast(error, true); }
  });
}

if (sort.value !== "name") apply();
document.body.dataset.cardList = "ready";
