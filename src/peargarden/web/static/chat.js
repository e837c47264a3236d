// The chat page: messages with thinking folded and a timeline of tool calls, a streaming reply,
// swipes, regenerate / continue / write-for-me, edit / delete / branch, the branch tree, the mode
// switch and the warnings.  Everything goes through the JSON API; nothing here knows prompts.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { cardText } from "./card_html.js";
import { streamPost } from "./stream.js";
import { askApproval } from "./approval.js";
import { drawTree } from "./tree.js";
import { hotkey } from "./hotkeys.js";

const root = document.getElementById("chat");
const card = root.dataset.card;
const chatId = root.dataset.chat;
const base = `/api/chats/${encodeURIComponent(card)}/${encodeURIComponent(chatId)}`;
const list = document.getElementById("messages");
const composer = document.getElementById("composer");
let state = null;
let running = null;
let inContext = null;

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

// -- drawing -----------------------------------------------------------------------------------

function thinkingFold(text) {
  const fold = document.createElement("details");
  fold.className = "thinking";
  const summary = document.createElement("summary");
  summary.textContent = t("思考", "Thinking");
  const body = document.createElement("div");
  body.className = "thinking-text";
  body.textContent = text;
  fold.append(summary, body);
  return fold;
}

function timelineItem(name, args, callId) {
  const item = document.createElement("li");
  item.className = "tool-call";
  item.dataset.call = callId || "";
  const head = document.createElement("div");
  head.className = "tool-head";
  head.textContent = `⚙ ${name} ${args ? JSON.stringify(args) : ""}`;
  item.append(head);
  return item;
}

function toolResult(item, text, isError) {
  const fold = document.createElement("details");
  fold.className = isError ? "tool-result error" : "tool-result";
  const summary = document.createElement("summary");
  summary.textContent = (isError ? "✗ " : "↳ ") + (text.split("\n")[0] || "").slice(0, 80);
  const body = document.createElement("pre");
  body.textContent = text;
  fold.append(summary, body);
  item.append(fold);
}

function parseArgs(raw) {
  if (raw && typeof raw === "object") return raw;
  try { return JSON.parse(raw); } catch { return raw; }
}

function messageActions(message, last) {
  const bar = document.createElement("div");
  bar.className = "msg-actions";
  const add = (label, en, handler, cls) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `link ${cls}`;
    button.textContent = t(label, en);
    button.addEventListener("click", handler);
    bar.append(button);
  };
  if (message.role === "assistant" && last && state.swipe.count > 0) {
    // SillyTavern's arrows: ‹ only where an earlier swipe exists; › to a later one, or a new reply
    // (the server says when: never on the chat's first message, whose arrows only cycle the
    // alternate greetings it has).
    const { position, count, generate } = state.swipe;
    const swipes = document.createElement("span");
    swipes.className = "swipes";
    bar.append(swipes);
    const arrow = (text, step, cls, label) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `swipe ${cls}`;
      button.textContent = text;
      button.setAttribute("aria-label", label);
      button.addEventListener("click", () => swipe(step));
      swipes.append(button);
    };
    if (position > 1) arrow("‹", -1, "swipe-prev", t("上一条", "previous swipe"));
    if (count > 1) {
      const shown = document.createElement("span");
      shown.className = "swipe-count";
      shown.textContent = `${position}/${count}`;
      swipes.append(shown);
    }
    if (position < count || generate) arrow("›", 1, "swipe-next", t("下一条", "next swipe"));
  }
  add("编辑", "Edit", () => startEdit(message), "edit");
  if (message.role === "user" || message.role === "assistant") {
    const hidden = message.tags.includes("hidden");
    add(hidden ? "取消隐藏" : "隐藏", hidden ? "Unhide" : "Hide",
      () => change("hide", { index: message.index, hidden: !hidden }), hidden ? "unhide" : "hide");
  }
  add("从这里分支", "Branch here", () => change("branch", { index: message.index }), "branch");
  add("删除", "Delete", () => change("delete", { index: message.index }), "delete");
  return bar;
}

// Name, avatar, time and index; token count and generation time in a line shown on hover or by
// the "details" switch (as SillyTavern shows them).
function messageHead(message) {
  const head = document.createElement("div");
  head.className = "msg-head";
  if (message.avatar) {
    const img = document.createElement("img");
    img.className = "avatar";
    img.src = message.avatar;
    img.alt = "";
    head.append(img);
  } else {
    const initial = document.createElement("span");
    initial.className = "avatar initial";
    initial.textContent = [...(message.speaker || "?")][0];
    head.append(initial);
  }
  const name = document.createElement("strong");
  name.className = "speaker";
  name.textContent = message.speaker;
  const time = document.createElement("time");
  time.className = "msg-time";
  // No time (an imported send_date nobody can read) shows nothing rather than a wrong one.
  const when = message.time ? new Date(message.time) : null;
  if (when && !Number.isNaN(when.getTime())) time.dateTime = message.time;
  time.textContent = !when || Number.isNaN(when.getTime()) ? "" : when.toLocaleString(t("zh-CN", "en-GB"),
    { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
  const index = document.createElement("span");
  index.className = "msg-index";
  index.textContent = `#${message.index}`;
  const meta = document.createElement("span");
  meta.className = "msg-meta";
  const parts = [t(`${message.tokens} 词元`, `${message.tokens} tokens`)];
  if (message.gen_seconds != null) parts.push(t(`用时 ${message.gen_seconds.toFixed(1)} 秒`, `${message.gen_seconds.toFixed(1)} s`));
  meta.textContent = parts.join(" · ");
  head.append(name, time, index, meta);
  return head;
}

// The last request's tokens against the budget it was built for: tavern mode's is the preset's
// context size, part of which (reserve) is kept for the reply; the prompt is full at limit − reserve.
function drawContext() {
  const bar = document.getElementById("context-bar");
  const { tokens, limit, reserve = 0, source } = state.context;
  const share = limit ? Math.min(1, tokens / limit) : 0;
  bar.querySelector(".fill").style.width = `${(share * 100).toFixed(1)}%`;
  bar.classList.toggle("full", limit > 0 && tokens > 0.9 * (limit - reserve));
  const whose = source === "preset" ? t("预设", "preset") : t("故事", "story");
  const kept = reserve ? t(`，回复预留 ${reserve}`, `, ${reserve} kept for the reply`) : "";
  bar.querySelector(".label").textContent = tokens
    ? t(`上下文 ${tokens} / ${limit} 词元（${Math.round(share * 100)}%，${whose}${kept}）`,
      `context ${tokens} / ${limit} tokens (${Math.round(share * 100)}%, ${whose}${kept})`)
    : t(`上下文 — / ${limit} 词元（还没有请求，${whose}${kept}）`, `context — / ${limit} tokens (no request yet, ${whose}${kept})`);
  bar.title = bar.querySelector(".label").textContent;
}

function drawMessages() {
  list.textContent = "";
  const calls = new Map();
  const visible = state.messages;
  const lastAssistant = [...visible].reverse().find((m) => m.role === "assistant");
  let markerDrawn = false;
  for (const message of visible) {
    if (inContext && !markerDrawn && inContext.has(message.id)) {
      const marker = document.createElement("li");
      marker.className = "context-marker";
      marker.textContent = t("—— 以下在上下文中 ——", "—— in context from here ——");
      list.append(marker);
      markerDrawn = true;
    }
    if (message.role === "tool") {
      const item = calls.get(message.tool_call_id);
      if (item) toolResult(item, message.content, message.is_error);
      continue;
    }
    const li = document.createElement("li");
    li.className = `msg ${message.role}`;
    li.dataset.index = message.index;
    li.dataset.id = message.id;
    if (inContext && inContext.has(message.id)) li.classList.add("in-context");
    if (message.tags.includes("greeting")) li.classList.add("greeting");
    const hidden = message.tags.includes("hidden");
    if (hidden) li.classList.add("hidden-msg");
    li.append(messageHead(message));
    if (hidden) {
      // SillyTavern's hidden message (/hide): kept in the chat, never sent to the model.
      const note = document.createElement("span");
      note.className = "hidden-note";
      note.textContent = t("已隐藏：不发给模型", "hidden: not sent to the model");
      li.querySelector(".msg-head").append(note);
    }
    if (message.reasoning) li.append(thinkingFold(message.reasoning));
    if (message.content) {
      let body;
      if (message.html) {  // Markdown rendered and sanitised by the server (web/markdown.py)
        body = document.createElement("div");
        body.className = "md";
        body.innerHTML = message.html;
      } else {
        body = cardText(message.display || message.content, "card-html");
      }
      body.classList.add("msg-text");
      li.append(body);
    }
    if (message.tool_calls.length) {
      const timeline = document.createElement("ol");
      timeline.className = "timeline";
      for (const call of message.tool_calls) {
        const item = timelineItem(call.name, parseArgs(call.arguments), call.id);
        calls.set(call.id, item);
        timeline.append(item);
      }
      li.append(timeline);
    }
    li.append(messageActions(message, message === lastAssistant));
    list.append(li);
  }
}

function drawWarnings(extra = []) {
  const box = document.getElementById("warnings");
  const all = [...new Set([...(state?.warnings || []), ...extra])];
  box.textContent = "";
  for (const warning of all) {
    const li = document.createElement("li");
    li.textContent = `⚠ ${warning}`;
    box.append(li);
  }
  box.hidden = all.length === 0;
}

function showMode(mode) {
  if (!state) return;
  state.mode = mode;
  const select = document.getElementById("mode");
  if (![...select.options].some((option) => option.value === mode)) { draw(); return; }
  select.value = mode;
  root.dataset.mode = mode;
}

function draw() {
  const select = document.getElementById("mode");
  select.textContent = "";
  for (const mode of state.modes) {
    const option = document.createElement("option");
    option.value = mode;
    option.textContent = { stage: t("舞台（stage）", "Stage"), tavern: t("酒馆（tavern）", "Tavern"),
      work: t("工作（work）", "Work") }[mode] || mode;
    select.append(option);
  }
  select.value = state.mode;
  root.dataset.mode = state.mode;
  document.getElementById("persona-name").textContent = state.persona;
  drawMessages();
  drawContext();
  drawWarnings();
  drawTree(document.getElementById("tree"), state.tree, state.leaf, (id) => change("goto", { entry_id: id }));
  translate(root);
  list.scrollTop = list.scrollHeight;
  // At phone width the page itself scrolls (the composer stays at the bottom): show the newest message.
  if (getComputedStyle(list).overflowY === "visible") window.scrollTo(0, document.body.scrollHeight);
}

async function refresh() {
  state = await api(base);
  inContext = null;  // no beat recorded yet (the context bar counts no tokens): no marker to draw
  if (state.context.tokens) {
    try {
      const seen = await api(`/api/inspect/${encodeURIComponent(card)}/${encodeURIComponent(chatId)}?source=last`);
      inContext = new Set(seen.in_context);
    } catch { inContext = null; }
  }
  draw();
}

async function change(action, body) {
  try {
    state = await post(`${base}/${action}`, body);
    draw();
    await loadChats();  // the picker counts the active branch's messages: a branch or delete changes it
  } catch (error) { toast(error.message, true); }
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

// -- beats ---------------------------------------------------------------------------------------

function liveMessage() {
  const li = document.createElement("li");
  li.className = "msg assistant live";
  const text = document.createElement("div");
  text.className = "msg-text plain live-text";
  li.append(text);
  list.append(li);
  return { li, text, thinking: null, timeline: null, calls: new Map() };
}

function onItem(live, item) {
  switch (item.type) {
    case "beat": running = item.beat_id; break;
    case "text_delta": live.text.textContent += item.text; break;
    case "thinking_delta":
      if (!live.thinking) { live.thinking = thinkingFold(""); live.li.prepend(live.thinking); }
      live.thinking.querySelector(".thinking-text").textContent += item.text;
      break;
    case "tool_start": {
      if (!live.timeline) { live.timeline = document.createElement("ol"); live.timeline.className = "timeline"; live.li.append(live.timeline); }
      const entry = timelineItem(item.name, item.args, item.call_id);
      live.calls.set(item.call_id, entry);
      live.timeline.append(entry);
      break;
    }
    case "tool_end": {
      const entry = live.calls.get(item.call_id);
      if (entry) toolResult(entry, item.text, item.is_error);
      // The model switched the chat's mode itself (conversation_mode): show it at once.
      if (item.details && typeof item.details.mode === "string") showMode(item.details.mode);
      break;
    }
    case "approval_prompt": askApproval(item); break;
    case "warning": drawWarnings([item.message]); break;
    case "error": toast(item.message, true); break;
    default: break;
  }
  list.scrollTop = list.scrollHeight;
}

async function play(body) {
  if (running) return;
  const live = liveMessage();
  if (body.action === "send") {
    const mine = document.createElement("li");
    mine.className = "msg user pending";
    mine.textContent = body.text;
    live.li.before(mine);
  }
  setBusy(true);
  let impersonated = "";
  try {
    await streamPost(`${base}/beat`, body, (item) => {
      if (item.type === "text_delta") impersonated += item.text;
      onItem(live, item);
    });
  } catch (error) {
    toast(error.message, true);
  } finally {
    running = null;
    setBusy(false);
  }
  if (body.action === "impersonate") composer.value = impersonated.trim();
  await Promise.all([refresh(), loadChats().catch(() => {})]);
  document.body.dataset.beats = String(Number(document.body.dataset.beats || 0) + 1);
}

function setBusy(busy) {
  root.classList.toggle("busy", busy);
  document.getElementById("stop").hidden = !busy;
  for (const id of ["send", "regenerate", "continue", "impersonate"]) document.getElementById(id).disabled = busy;
}

function swipe(step) { play({ action: "swipe", step }); }

document.getElementById("send").addEventListener("click", () => {
  const text = composer.value.trim();
  if (!text) return;
  composer.value = "";
  play({ action: "send", text });
});
// Enter sends and Shift+Enter breaks the line (SillyTavern's default); the switch beside the
// composer makes Enter break the line and Ctrl+Enter send.  Enter that ends an IME composition
// (pinyin) never sends.
const enterSends = document.getElementById("enter-sends");
enterSends.checked = localStorage.getItem("pear-enter") !== "newline";
enterSends.addEventListener("change", () => localStorage.setItem("pear-enter", enterSends.checked ? "send" : "newline"));
composer.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.isComposing || event.keyCode === 229) return;
  if (!composer.value.trim() && (event.ctrlKey || event.altKey)) return;  // the hotkeys' (below)
  const send = (event.ctrlKey || event.metaKey) || (enterSends.checked && !event.shiftKey);
  if (!send) return;
  event.preventDefault();
  document.getElementById("send").click();
});
// SillyTavern's hotkeys (hotkeys.js says which key does what).
document.addEventListener("keydown", (event) => {
  if (!state || event.defaultPrevented) return;  // the chat bar's own Enter already sent (and emptied it)
  const target = event.target;
  const inField = target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  const messages = state.messages;
  const action = hotkey({
    key: event.key, ctrl: event.ctrlKey, alt: event.altKey, shift: event.shiftKey, meta: event.metaKey,
    composing: event.isComposing || event.keyCode === 229,
    field: target === composer ? "composer" : inField ? "other" : "none",
    typed: composer.value.trim() !== "",
  }, {
    running: Boolean(running), editing: Boolean(list.querySelector(".edit-box")), swipe: state.swipe,
    modal: Boolean(document.querySelector("dialog[open]")),
    hasUser: messages.some((m) => m.role === "user"), hasMessages: messages.length > 0,
  });
  if (!action) return;
  event.preventDefault();
  // the last message drawn as one (tool results are folded into the reply that called them)
  const lastOf = (role) => [...messages].reverse().find((m) => (role ? m.role === role : m.role !== "tool"));
  switch (action) {
    case "swipe-prev": swipe(-1); break;
    case "swipe-next": swipe(1); break;
    case "edit-last": startEdit(lastOf()); break;
    case "edit-last-user": startEdit(lastOf("user")); break;
    case "regenerate": play({ action: "regenerate" }); break;
    case "continue": play({ action: "continue" }); break;
    case "stop": document.getElementById("stop").click(); break;
    case "cancel-edit": draw(); composer.focus(); break;
    default: break;
  }
});
document.getElementById("show-meta").addEventListener("change", (event) => {
  root.classList.toggle("show-meta", event.target.checked);
});
document.getElementById("regenerate").addEventListener("click", () => play({ action: "regenerate" }));
document.getElementById("continue").addEventListener("click", () => play({ action: "continue" }));
document.getElementById("impersonate").addEventListener("click", () => play({ action: "impersonate" }));
document.getElementById("stop").addEventListener("click", () => {
  if (running) post(`/api/beats/${running}/stop`, {}).catch((error) => toast(error.message, true));
});
document.getElementById("mode").addEventListener("change", (event) => change("mode", { mode: event.target.value }));
document.getElementById("new-chat").addEventListener("click", async () => {
  try {
    const persona = document.getElementById("new-persona").value;
    const fresh = await post(`/api/chats/${encodeURIComponent(card)}`, persona ? { persona } : {});
    location.href = `/chat/${encodeURIComponent(card)}/${encodeURIComponent(fresh.chat_id)}`;
  } catch (error) { toast(error.message, true); }
});
document.addEventListener("pear-lang", draw);
document.addEventListener("pear-chat-changed", () => { refresh().catch((error) => toast(error.message, true)); });

// The card's chats, newest first, with their message counts; read again after every change (a beat,
// a branch, a deletion) so the picker never lists a chat that is gone or a stale count.
async function loadChats() {
  const select = document.getElementById("chat-list");
  const chats = (await api(`/api/chats/${encodeURIComponent(card)}`)).reverse();
  select.textContent = "";
  for (const chat of chats) {
    const option = document.createElement("option");
    option.value = chat.chat_id;
    option.textContent = `${chat.title || chat.chat_id} · ${chat.messages}`;
    select.append(option);
  }
  if (!chats.some((chat) => chat.chat_id === chatId)) {  // this chat was just deleted
    const option = document.createElement("option");
    option.value = "";
    option.disabled = true;
    option.textContent = t("（已删除的对话）", "(deleted chat)");
    select.prepend(option);
    select.value = "";
    return;
  }
  select.value = chatId;
}
document.getElementById("chat-list").addEventListener("change", (event) => {
  location.href = `/chat/${encodeURIComponent(card)}/${encodeURIComponent(event.target.value)}`;
});

// Rename gives the chat a title; delete goes into the vault and can be undone from the banner.
document.getElementById("rename-chat").addEventListener("click", async () => {
  const current = document.getElementById("chat-list").selectedOptions[0]?.textContent.split(" · ")[0] || chatId;
  const title = prompt(t("对话的名字", "Chat title"), current === chatId ? "" : current);
  if (title === null) return;
  try {
    await post(`${base}/rename`, { title });
    await loadChats();
    toast(t("已重命名", "Renamed"));
  } catch (error) { toast(error.message, true); }
});
let undo = null;
document.getElementById("remove-chat").addEventListener("click", async () => {
  if (!confirm(t("删除这个对话？保险库会先留一份快照，可以撤销。", "Delete this chat? The vault keeps a snapshot; you can undo."))) return;
  try {
    undo = (await post(`${base}/remove`, {})).undo;
    for (const id of ["send", "regenerate", "continue", "impersonate", "composer"]) document.getElementById(id).disabled = true;
    root.classList.add("removed-chat");
    await loadChats();
    // The banner comes last: when it shows, the page already agrees with it (controls off, list read again).
    document.getElementById("removed").hidden = false;
  } catch (error) { toast(error.message, true); }
});
document.getElementById("undo-remove").addEventListener("click", async () => {
  try {
    await post("/api/vault/restore", undo);
    location.reload();
  } catch (error) { toast(error.message, true); }
});

async function loadPersonas() {
  const select = document.getElementById("new-persona");
  for (const persona of await api("/api/personas")) {
    const option = document.createElement("option");
    option.value = persona.name;
    option.textContent = persona.name;
    select.append(option);
  }
}

Promise.all([refresh(), loadPersonas(), loadChats()]).then(() => { document.body.dataset.ready = "1"; })
  .catch((error) => toast(error.message, true));
