// The features beside the chat on the chat page — translation, expressions, voices, pictures: their
// buttons under each message, their part of the side panel, what each does after a beat.  chat.js
// knows nothing of them: messages are read as chat.js draws them (li.msg with data-index and data-id
// in #messages), a finished beat from body[data-beats], and a change they make to the chat is
// announced with the "pear-chat-changed" event chat.js already redraws on.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";
import { Translation } from "./translate.js";
import { Expressions } from "./expressions.js";
import { Voices } from "./tts.js";
import { Pictures } from "./pictures.js";

const root = document.getElementById("chat");
const card = root.dataset.card;
const group = root.dataset.group;  // the group page (group_chat.js) has the same parts
const chatId = root.dataset.chat;
const list = document.getElementById("messages");
const panel = document.getElementById("extras-panel");

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

const context = {
  card, group, chatId, list, post, toast,
  base: group ? `/api/groups/${encodeURIComponent(group)}/chats/${encodeURIComponent(chatId)}`
    : `/api/chats/${encodeURIComponent(card)}/${encodeURIComponent(chatId)}`,
  // The messages drawn now, oldest first (the window of a long chat).
  messages: () => [...list.querySelectorAll("li.msg[data-id]:not(.pending)")],
  // A link to the page where a feature that is off is switched on.
  offNote(box, zh, en) {
    const note = document.createElement("p");
    note.className = "extras-off";
    note.append(`${t(zh, en)} `);
    const link = document.createElement("a");
    link.href = "/extras";
    link.textContent = t("去设置", "set it up");
    note.append(link);
    box.append(note);
  },
  redecorate: () => scan(true),
};
let features = [];

function section(feature) {
  const box = document.createElement("section");
  box.className = `extras-${feature.name}`;
  panel.append(box);
  return box;
}

function actions(li) {
  let bar = li.querySelector(":scope > .msg-actions");
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "msg-actions";
    li.append(bar);
  }
  return bar;
}

// Each message once (a message drawn again is a new element, decorated again); *again*: all of them,
// after a feature learnt something new (its records were read).
function scan(again = false) {
  for (const li of context.messages()) {
    if (li.dataset.extras && !again) continue;
    li.dataset.extras = "1";
    const bar = actions(li);
    for (const feature of features) {
      try { feature.decorate(li, bar); } catch (error) { toast(error.message, true); }
    }
  }
}

async function start() {
  const state = await api(`${context.base}/extras`);  // carried by the card's chat page (web/first_answers.py)
  features = [
    new Expressions(context, state.settings.expressions, state.sprites),
    new Translation(context, state.settings.translate, state.translations),
    new Voices(context, state.settings.tts),
    new Pictures(context, state.settings.pictures),
  ];
  for (const feature of features) feature.panel(section(feature));
  new MutationObserver(() => scan()).observe(list, { childList: true });
  let beats = document.body.dataset.beats || "0";
  new MutationObserver(() => {
    if ((document.body.dataset.beats || "0") === beats) return;
    beats = document.body.dataset.beats;
    for (const feature of features) feature.afterBeat().catch((error) => toast(error.message, true));
  }).observe(document.body, { attributes: true, attributeFilter: ["data-beats"] });
  await Promise.all(features.map((feature) => feature.start().catch((error) => toast(error.message, true))));
  scan(true);
  document.body.dataset.extrasReady = "1";
}

// A group page before its first chat has nothing to decorate.
if (chatId) start().catch((error) => toast(error.message, true));
