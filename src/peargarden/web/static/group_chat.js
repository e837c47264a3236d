// A group chat: each reply with its speaker's face and name, one round per message (every speaker
// streams in turn, a "speaker" item opening each), stop between speakers, regenerate / swipe /
// continue / write-for-me, the member strip (mute, speak now) and the group's settings.  Everything
// goes through /api/groups; nothing here knows prompts.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { streamPost } from "./stream.js";
import { askApproval } from "./approval.js";
import { drawTree } from "./tree.js";
import { drawMemberStrip } from "./member_strip.js";
import { avatarOf, messageItem, swipeArrows, takeBack } from "./chat_message.js";
import { pickMessages } from "./pick_messages.js";
import { warningList } from "./warnings.js";
import { attachStatusBars, statusChanged } from "./status_frame.js";

const root = document.getElementById("chat");
const group = root.dataset.group;
const chatId = root.dataset.chat;
const groupBase = `/api/groups/${encodeURIComponent(group)}`;
const base = `${groupBase}/chats/${encodeURIComponent(chatId)}`;
const list = document.getElementById("messages");
const composer = document.getElementById("composer");
const STRATEGIES = ["natural", "list", "manual", "pooled"];
const GENERATIONS = ["swap", "join", "join-muted"];
let state = null;
let running = null;
let speaking = "";

// A member's status bars read the chat through the page, as on a card's chat page (status_frame.js).
attachStatusBars({
  base,
  rows: () => (state ? state.messages : []),
  scroller: () => list,
  names: () => ({ user: state ? state.persona : "", char: speaking || (state ? state.char || "" : "") }),
});

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

const cardAvatar = (card) => `/api/cards/${encodeURIComponent(card)}/avatar?size=thumb`;

// -- drawing -----------------------------------------------------------------------------------

function head(speaker, avatar) {
  const box = document.createElement("div");
  box.className = "msg-head";
  box.append(avatarOf(avatar, speaker));
  const name = document.createElement("strong");
  name.className = "speaker";
  name.textContent = speaker;
  box.append(name);
  return box;
}

// The buttons under a message, as a card's chat page has them (chat_message.js).
const on = {
  edit: (message) => startEdit(message),
  hide: (message, hidden) => change("hide", { index: message.index, hidden }),
  branch: (message) => change("branch", { index: message.index }),
  remove: (message) => change("delete", { index: message.index }),
  undo: (message) => change("undo", { index: message.index }),
};

// Each message as a card's chat page draws it — its speaker's face and name, time, number, tokens on
// hover, hidden ones greyed, the member's status bar — and the swipe arrows on the last reply.
function drawMessages() {
  list.textContent = "";
  const shown = state.messages.filter((m) => m.role === "user" || m.role === "assistant");
  const last = [...shown].reverse().find((m) => m.role === "assistant");
  for (const message of shown) {
    // A tool round shows nothing of its own, unless it ended a stage beat: then it carries the prose.
    if (message.role === "assistant" && !message.content && !message.reasoning && !message.prose && !message.choice) continue;
    const li = messageItem({ ...message, tool_calls: [] }, on);  // a round's tool calls: its timeline is the inspector's
    if (message.card) li.dataset.card = message.card;
    if (message === last && state.swipe.count > 0) {
      li.querySelector(".msg-actions").prepend(swipeArrows(state.swipe, (step) => play({ action: "swipe", step })));
    }
    list.append(li);
  }
}

const warningFixes = {};  // warning text → the fix the page offers (the state's, and the stream's)
function drawWarnings(extra = []) {
  Object.assign(warningFixes, state?.warning_fixes);
  warningList(document.getElementById("warnings"), [...(state?.warnings || []), ...extra], warningFixes);
}

function drawStrip() {
  drawMemberStrip(document.getElementById("member-strip"), state.group.members, {
    speaking, busy: Boolean(running),
    onMute: async (member, muted) => {
      try {
        await post(`${groupBase}/mute`, { member: member.card, muted });
        await refresh();
      } catch (error) { toast(error, true); }
    },
    onSpeak: (member) => play({ action: "send", text: "", speaker: member.card }),
  });
}

function drawSettings() {
  const info = state.group;
  document.getElementById("set-strategy").value = STRATEGIES[info.activation_strategy] || "natural";
  document.getElementById("set-generation").value = GENERATIONS[info.generation_mode] || "swap";
  document.getElementById("set-choice").value = info.speaker_choice;
  document.getElementById("set-self").checked = info.allow_self_responses;
  document.getElementById("set-prefix").value = info.join_prefix || "";
  document.getElementById("set-suffix").value = info.join_suffix || "";
}

function draw() {
  const select = document.getElementById("mode");
  select.textContent = "";
  for (const mode of state.modes) {
    const option = document.createElement("option");
    option.value = mode;
    option.textContent = { stage: t("舞台（stage）", "Stage"), tavern: t("酒馆（tavern）", "Tavern") }[mode] || mode;
    select.append(option);
  }
  select.value = state.mode;
  root.dataset.mode = state.mode;
  document.getElementById("group-title").textContent = state.group.name;
  document.getElementById("group-avatar").src = `${groupBase}/avatar`;
  document.getElementById("persona-name").textContent = state.persona;
  drawStrip();
  drawSettings();
  drawMessages();
  drawWarnings();
  drawTree(document.getElementById("tree"), state.tree, state.tree_leaf, (id) => change("goto", { entry_id: id }));
  translate(root);
  list.scrollTop = list.scrollHeight;
}

async function refresh() {
  state = await api(base);
  draw();
}

async function change(action, body) {
  try {
    state = await post(`${base}/${action}`, body);
    draw();
    statusChanged(action).catch((error) => toast(error, true));
  } catch (error) { toast(error, true); }
}

function startEdit(message) {
  const li = list.querySelector(`li.msg[data-index="${message.index}"]`);
  const box = document.createElement("textarea");
  box.className = "edit-box";
  box.value = message.content;
  const save = document.createElement("button");
  save.type = "button";
  save.className = "button save-edit";
  save.textContent = t("保存", "Save");
  save.addEventListener("click", () => change("edit", { index: message.index, text: box.value }));
  li.textContent = "";
  li.append(box, save);
  box.focus();
}

// -- a round -----------------------------------------------------------------------------------

// One streaming reply per speaker: a "speaker" item opens the next one, with that member's face.
function liveReply(name, card) {
  const li = document.createElement("li");
  li.className = "msg assistant live";
  if (card) li.dataset.card = card;
  const text = document.createElement("div");
  text.className = "msg-text plain live-text";
  li.append(head(name, card ? cardAvatar(card) : null), text);
  list.append(li);
  return { li, text };
}

async function play(body) {
  if (running || !chatId) return;
  if (body.action === "send" && body.text) {
    const mine = document.createElement("li");
    mine.className = "msg user pending";
    mine.textContent = body.text;
    list.append(mine);
  }
  running = "starting";
  setBusy(true);
  let live = null;
  let impersonated = "";
  try {
    await streamPost(`${base}/beat`, body, (item) => {
      switch (item.type) {
        case "beat": running = item.beat_id; break;
        case "speaker":
          speaking = item.card;
          drawStrip();
          if (body.action !== "impersonate") live = liveReply(item.name, item.card);
          break;
        case "text_delta":
          impersonated += item.text;
          if (live) live.text.textContent += item.text;
          break;
        case "text_retract":
          impersonated = impersonated.slice(0, Math.max(0, impersonated.length - item.text.length));
          if (live) takeBack(live.text, item.text, item.reason);
          break;
        // The stage's sealed draft is the speaker's reply while the round runs (what streamed
        // before were the model's notes between its tool calls).
        case "prose": if (live) live.text.textContent = item.text; break;
        case "approval_prompt": askApproval(item); break;
        case "warning":
          if (item.fix) warningFixes[item.message] = item.fix;
          drawWarnings([item.message]);
          break;
        case "error": toast(item, true); break;
        default: break;
      }
      list.scrollTop = list.scrollHeight;
    });
  } catch (error) {
    toast(error, true);
  } finally {
    running = null;
    speaking = "";
    setBusy(false);
  }
  if (body.action === "impersonate") composer.value = impersonated.trim();
  await refresh();
  if (body.action !== "impersonate") await statusChanged(body.action).catch((error) => toast(error, true));
  document.body.dataset.beats = String(Number(document.body.dataset.beats || 0) + 1);
}

// A feature beside the chat wrote into it (a picture: chat_extras.js).
document.addEventListener("pear-chat-changed", () => { refresh().catch((error) => toast(error.message, true)); });

function setBusy(busy) {
  root.classList.toggle("busy", busy);
  document.getElementById("stop").hidden = !busy;
  for (const id of ["send", "regenerate", "continue", "impersonate"]) document.getElementById(id).disabled = busy;
  for (const button of document.querySelectorAll(".member .speak")) button.disabled = busy;
}

document.getElementById("send").addEventListener("click", () => {
  const text = composer.value.trim();
  composer.value = "";
  play({ action: "send", text });  // an empty message lets the members go on by themselves
});
composer.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) return;
  event.preventDefault();
  document.getElementById("send").click();
});
document.getElementById("regenerate").addEventListener("click", () => play({ action: "regenerate" }));
document.getElementById("continue").addEventListener("click", () => play({ action: "continue" }));
document.getElementById("impersonate").addEventListener("click", () => play({ action: "impersonate" }));
document.getElementById("stop").addEventListener("click", () => {
  if (running && running !== "starting") post(`/api/beats/${running}/stop`, {}).catch((error) => toast(error, true));
});
document.getElementById("mode").addEventListener("change", (event) => change("mode", { mode: event.target.value }));
document.getElementById("save-settings").addEventListener("click", async () => {
  try {
    await post(`${groupBase}/settings`, {
      strategy: document.getElementById("set-strategy").value,
      generation: document.getElementById("set-generation").value,
      speaker_choice: document.getElementById("set-choice").value,
      self_responses: document.getElementById("set-self").checked,
      join_prefix: document.getElementById("set-prefix").value,
      join_suffix: document.getElementById("set-suffix").value,
    });
    await refresh();
    toast(t("已保存", "Saved"));
  } catch (error) { toast(error, true); }
});

async function newChat() {
  try {
    const fresh = await post(`${groupBase}/chats`, {});
    location.href = `/group/${encodeURIComponent(group)}/${encodeURIComponent(fresh.chat_id)}`;
  } catch (error) { toast(error, true); }
}
document.getElementById("new-chat").addEventListener("click", newChat);
document.getElementById("start-chat").addEventListener("click", newChat);

async function loadChats() {
  const select = document.getElementById("chat-list");
  const chats = (await api(`${groupBase}/chats`)).reverse();
  select.textContent = "";
  for (const chat of chats) {
    const option = document.createElement("option");
    option.value = chat.chat_id;
    option.textContent = chat.chat_id;
    select.append(option);
  }
  select.value = chatId;
}
document.getElementById("chat-list").addEventListener("change", (event) => {
  location.href = `/group/${encodeURIComponent(group)}/${encodeURIComponent(event.target.value)}`;
});
document.addEventListener("pear-lang", () => { if (state) draw(); });
document.getElementById("show-meta").addEventListener("change", (event) => {
  root.classList.toggle("show-meta", event.target.checked);
});
// SillyTavern's "delete messages" (pick_messages.js), once there is a chat.
if (chatId) pickMessages(root, list, (indices) => change("delete", { indices }));

if (!chatId) {
  // A group without a chat: a button starts one (the page itself made nothing).
  document.getElementById("start").hidden = false;
  for (const id of ["send", "regenerate", "continue", "impersonate", "composer"]) document.getElementById(id).disabled = true;
  translate(root);
  document.body.dataset.ready = "1";
} else {
  Promise.all([refresh(), loadChats()]).then(() => { document.body.dataset.ready = "1"; })
    .catch((error) => toast(error, true));
}
