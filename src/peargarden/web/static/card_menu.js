// The card grid's own actions: create from scratch, rename, a new avatar, duplicate, delete (into
// the vault, with undo), export links.  Each change reloads the grid.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const json = (body) => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const cardUrl = (folder) => `/api/cards/${encodeURIComponent(folder)}`;

document.getElementById("new-card-save").addEventListener("click", async () => {
  const value = (id) => document.getElementById(id).value;
  try {
    const made = await api("/api/cards", json({ name: value("new-card-name"), description: value("new-card-description"),
      first_mes: value("new-card-first") }));
    location.href = `/chat/${encodeURIComponent(made.folder)}`;
  } catch (error) { toast(error, true); }
});

let undo = null;
document.getElementById("card-undo").addEventListener("click", async () => {
  try {
    await api("/api/vault/restore", json(undo));
    location.reload();
  } catch (error) { toast(error, true); }
});

for (const tile of document.querySelectorAll(".card-tile")) {
  const folder = tile.dataset.folder;
  tile.querySelector(".card-rename")?.addEventListener("click", async () => {
    const name = prompt(t("新的名字", "New name"), tile.querySelector(".card-name").textContent);
    if (!name) return;
    try { await api(`${cardUrl(folder)}/rename`, json({ name })); location.reload(); }
    catch (error) { toast(error, true); }
  });
  tile.querySelector(".card-avatar input")?.addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    const form = new FormData();
    form.append("file", file, file.name);
    try { await api(`${cardUrl(folder)}/avatar`, { method: "POST", body: form }); location.reload(); }
    catch (error) { toast(error, true); }
  });
  tile.querySelector(".card-duplicate")?.addEventListener("click", async () => {
    try { await api(`${cardUrl(folder)}/duplicate`, json({})); location.reload(); }
    catch (error) { toast(error, true); }
  });
  tile.querySelector(".card-delete")?.addEventListener("click", async () => {
    const name = tile.querySelector(".card-name").textContent;
    if (!confirm(t(`删除角色卡「${name}」和它的对话？保险库会先留快照，可以撤销。`,
      `Delete the card "${name}" and its chats? The vault keeps a snapshot first; you can undo.`))) return;
    try {
      undo = (await api(`${cardUrl(folder)}/delete`, json({}))).undo;
      tile.remove();
      document.getElementById("card-removed").hidden = false;
    } catch (error) { toast(error, true); }
  });
}
document.body.dataset.ready = "1";
