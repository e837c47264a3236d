// The groups page: the groups with their members' faces, and a form that makes a group from cards
// (ticked in speaking order).  Everything goes through /api/groups.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";

const list = document.getElementById("group-list");
const choices = document.getElementById("card-choices");
const picked = [];  // card folders, in the order they were ticked: the speaking order

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

const avatar = (card) => `/api/cards/${encodeURIComponent(card)}/avatar?size=thumb`;
const groupUrl = (folder) => `/group/${encodeURIComponent(folder)}`;

async function drawGroups() {
  const groups = await api("/api/groups");
  list.textContent = "";
  document.getElementById("no-groups").hidden = groups.length > 0;
  for (const group of groups) {
    const li = document.createElement("li");
    li.dataset.folder = group.folder;
    const faces = document.createElement("span");
    faces.className = "faces";
    for (const member of group.members || []) {
      if (!member.card) continue;
      const img = document.createElement("img");
      img.src = avatar(member.card);
      img.alt = member.name;
      img.title = member.name;
      faces.append(img);
    }
    // The group's own picture, made of its members' (as SillyTavern's group avatars).
    const picture = document.createElement("img");
    picture.className = "group-avatar";
    picture.src = `/api/groups/${encodeURIComponent(group.folder)}/avatar`;
    picture.alt = "";
    const link = document.createElement("a");
    link.href = groupUrl(group.folder);
    link.textContent = group.name || group.folder;
    const about = document.createElement("span");
    about.className = "muted-text";
    about.textContent = group.error ? `⚠ ${group.error}`
      : (group.members || []).map((m) => m.name + (m.muted ? t("（静音）", " (muted)") : "")).join("、");
    li.append(picture, link, faces, about);
    list.append(li);
  }
}

async function drawCards() {
  const cards = await api("/api/cards");
  choices.textContent = "";
  for (const card of cards) {
    const li = document.createElement("li");
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = card.folder;
    box.addEventListener("change", () => {
      const at = picked.indexOf(card.folder);
      if (box.checked && at < 0) picked.push(card.folder);
      if (!box.checked && at >= 0) picked.splice(at, 1);
    });
    label.append(box, ` ${card.name || card.folder}`);
    li.append(label);
    choices.append(li);
  }
}

document.getElementById("create-group").addEventListener("click", async () => {
  const name = document.getElementById("group-name").value.trim();
  if (!name) { toast(t("给群聊起个名字", "Name the group"), true); return; }
  if (!picked.length) { toast(t("至少选一张卡", "Pick at least one card"), true); return; }
  try {
    const group = await post("/api/groups", {
      name, members: picked,
      strategy: document.getElementById("group-strategy").value,
      mode: document.getElementById("group-mode").value,
    });
    const chat = await post(`/api/groups/${encodeURIComponent(group.folder)}/chats`, {});
    location.href = `${groupUrl(group.folder)}/${encodeURIComponent(chat.chat_id)}`;
  } catch (error) { toast(error, true); }
});

translate(document.getElementById("groups"));
Promise.all([drawGroups(), drawCards()]).then(() => { document.body.dataset.ready = "1"; })
  .catch((error) => toast(error, true));
