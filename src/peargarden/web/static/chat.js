// The chat page: a window of the chat's messages (chat_window.js) with thinking folded and a timeline
// of tool calls, a streaming reply patched in when it ends, swipes, regenerate / continue /
// write-for-me, edit / delete / hide / branch anywhere in the window, the branch tree (drawn on
// demand, near what is shown), the mode switch and the warnings.  Everything goes through the JSON
// API; nothing here knows prompts.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { streamPost } from "./stream.js";
import { askApproval } from "./approval.js";
import { drawTree } from "./tree.js";
import { hotkey } from "./hotkeys.js";
import { messageItem, takeBack, thinkingFold, timelineItem, toolResult } from "./chat_message.js";
import { warningList } from "./warnings.js";
import { el } from "./dom.js";
import { pickMessages } from "./pick_messages.js";
import { MessageWindow, PAGE } from "./chat_window.js";
import { attachStatusBars, statusChanged } from "./status_frame.js";
import { scriptsRunning } from "./script_frames.js";
import { hearBeat } from "./script_live.js";
import { attachAutocomplete, isScript, runScript } from "./slash.js";
import { QuickReplies } from "./quick_replies.js";

const root = document.getElementById("chat");
const card = root.dataset.card;
const chatId = root.dataset.chat;
const base = `/api/chats/${encodeURIComponent(card)}/${encodeURIComponent(chatId)}`;
const list = document.getElementById("messages");
const composer = document.getElementById("composer");
let state = null;  // the last answer's chat-wide facts (mode, persona, context bar, warnings)
let running = null;  // the beat streaming now
let beatDone = Promise.resolve();  // the last beat, after-beat work included: the next one waits for it
let lastToken = 0;  // when the last piece of the reply arrived (bench/bench_web_chat.py reads the marks)

function post(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function query(window) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(window)) if (value != null) params.set(key, String(value));
  return params.toString();
}

const view = new MessageWindow(list, {
  fetchWindow: (window) => api(`${base}?${query(window)}`),
  onSwipe: (step) => swipe(step),
  on: {
    edit: (message) => startEdit(message),
    hide: (message, hidden) => change("hide", { index: message.index, hidden }, message.index),
    branch: (message) => change("branch", { index: message.index }),
    remove: (message) => change("delete", { index: message.index }, message.index),
    sibling: (message, step) => change("sibling", { index: message.index, step }, message.index),
    undo: (message) => change("undo", { index: message.index }, message.index),
  },
});

// A card's status bars read the chat through the page (status_frame.js).
attachStatusBars({
  base,
  rows: () => view.rows,
  scroller: () => view.scroller(),
  names: () => ({ user: state ? state.persona : "", char: state ? state.char : "" }),
});

// -- drawing -----------------------------------------------------------------------------------

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

const warningFixes = {};  // warning text → the fix the page offers (the state's, and the stream's)
function drawWarnings(extra = []) {
  Object.assign(warningFixes, state?.warning_fixes);
  warningList(document.getElementById("warnings"), [...(state?.warnings || []), ...extra], warningFixes);
}

function drawModes() {
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
}

function showMode(mode) {
  if (!state) return;
  state.mode = mode;
  const select = document.getElementById("mode");
  if (![...select.options].some((option) => option.value === mode)) { drawModes(); return; }
  select.value = mode;
  root.dataset.mode = mode;
}

// What the page shows besides the messages, from a chat state.
function drawChrome() {
  drawModes();
  document.getElementById("persona-name").textContent = state.persona;
  drawContext();
  drawWarnings();
}

// The branch tree near the window's first message, read when the panel is open (it is, unless
// the reader folded it): a long chat's whole tree is tens of thousands of entries.
let treeAsked = 0;
let lastTree = null;
const goto = (id) => change("goto", { entry_id: id });
async function loadTree() {
  const panel = document.getElementById("tree-panel");
  if (!panel.open) return;
  const asked = ++treeAsked;
  try {
    const found = await api(`${base}/tree?around=${view.first}`);
    if (asked !== treeAsked) return;  // a newer answer is on its way
    lastTree = found;
    drawTree(document.getElementById("tree"), found.tree, found.leaf, goto);
  } catch (error) { toast(error, true); }
}

function settled(fresh, tree = true) {
  state = fresh;
  drawChrome();
  if (tree) loadTree();
  // A fork the story stopped at is still open after a reload, until the reader answers it.
  const messages = fresh.messages || [];
  if (fresh.first + messages.length === fresh.total) {
    let open = null;
    for (let i = messages.length - 1; i >= 0 && messages[i].role !== "user" && !open; i--) open = messages[i].choice;
    if (open) showChoice(open); else if (!running) hideChoice();
  }
}

async function refresh() {
  const fresh = await api(`${base}?${query({ last: PAGE })}`);
  view.draw(fresh);
  settled(fresh, false);  // the tree once the page is ready
  translate(root);
}

// An edit, a deletion, a hide, a branch: the server answers with the same window, drawn again;
// *anchor* (a message number) stays where it was on the screen.
// A change still on its way (the mode picked just now) lands before the next beat starts.
let changing = Promise.resolve();
function change(action, body, anchor = null) {
  const done = applyChange(action, body, anchor);
  changing = done;
  return done;
}

async function applyChange(action, body, anchor) {
  try {
    const fresh = await post(`${base}/${action}?${query(view.query())}`, body);
    view.draw(fresh, anchor);
    settled(fresh);
    statusChanged(action).catch((error) => toast(error, true));
    await loadChats();  // the picker counts the active branch's messages: a branch or delete changes it
  } catch (error) { toast(error, true); }
}

function startEdit(message) {
  const li = list.querySelector(`li.msg[data-index="${message.index}"]`);
  if (!li) return;
  const box = document.createElement("textarea");
  box.className = "edit-box";
  box.value = message.content;
  const save = document.createElement("button");
  save.type = "button";
  save.className = "button save-edit";
  save.textContent = t("保存", "Save");
  save.addEventListener("click", () => change("edit", { index: message.index, text: box.value }, message.index));
  const editing = li.cloneNode(false);
  editing.classList.add("editing");
  editing.append(box, save);
  li.replaceWith(editing);
  editing.original = li;  // Escape puts the message back as it was
  box.focus();
}

function cancelEdit() {
  for (const editing of list.querySelectorAll("li.editing")) editing.replaceWith(editing.original);
}

// -- beats ---------------------------------------------------------------------------------------

function liveMessage() {
  const li = document.createElement("li");
  li.className = "msg assistant live";
  const text = document.createElement("div");
  text.className = "msg-text plain live-text";
  li.append(text);
  list.querySelector("li.more-newer").before(li);  // after the user's words, sent or waiting
  return { li, text, thinking: null, timeline: null, calls: new Map() };
}

// The user's message as it will be kept, drawn at once with its name, picture and time.
function sentMessage(text) {
  const mine = [...view.rows].reverse().find((m) => m.role === "user" && m.speaker === state.persona);
  const li = messageItem({
    role: "user", speaker: state.persona, avatar: mine ? mine.avatar : null, time: new Date().toISOString(),
    index: null, tokens: null, content: text, display: null, html: null, tags: [], tool_calls: [],
  }, null);
  li.classList.add("pending");
  list.querySelector("li.more-newer").before(li);
  return li;
}

function scrollDown() {
  view.toEnd();
}

function onItem(live, item) {
  switch (item.type) {
    case "beat": running = item.beat_id; break;
    case "text_delta": live.text.textContent += item.text; lastToken = performance.now(); break;
    case "text_retract": takeBack(live.text, item.text, item.reason); break;
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
    // The reply the user reads, handed over whole (the stage's sealed draft): it is the reply's text
    // while the beat is live (what streamed before were the model's notes between its tool calls).
    case "prose": live.text.textContent = item.text; break;
    case "choice": showChoice(item); break;
    case "approval_prompt": askApproval(item); break;
    case "script_events": hearBeat(base, item).catch((error) => toast(error, true)); break;
    case "warning":
      live.warnings.push(item.message);
      if (item.fix) warningFixes[item.message] = item.fix;
      drawWarnings(live.warnings);
      break;
    case "error": toast(item, true); break;
    default: break;
  }
  if (item.type !== "reply_end" && item.type !== "done") scrollDown();
}

// A fork handed to the reader (the stage's ask): the question and a button per option, which sends
// that option's text as the next message; with free_text the reader may write their own answer
// instead. It stays below the messages until the next beat starts.
function showChoice(item) {
  const card = document.getElementById("choice-card");
  card.textContent = "";
  card.append(el("p", { class: "choice-question", text: item.question }));
  const buttons = el("div", { class: "choice-options" });
  for (const option of item.options) {
    const button = el("button", { type: "button", class: "secondary choice-option", text: option });
    button.addEventListener("click", () => play({ action: "send", text: option }));
    buttons.append(button);
  }
  card.append(buttons);
  if (item.free_text) card.append(el("p", { class: "hint", text: t("也可以在下面直接写你自己的选择。", "Or write your own answer below.") }));
  card.hidden = false;
}

function hideChoice() {
  const card = document.getElementById("choice-card");
  card.hidden = true;
  card.textContent = "";
}

// Where a beat's changes start: a sent message is the next number; a new or other swipe replaces
// everything after the last message of the user's; continue changes the last message.
function changedFrom(action) {
  if (action === "send") return view.total;
  if (action === "continue") return Math.max(0, view.total - 1);
  const mine = [...view.rows].reverse().find((m) => m.role === "user");
  return mine ? mine.index + 1 : view.first;
}

// The visible count in the chat picker follows the patch (the list itself is not read again).
function recount(removed, added) {
  const said = (rows) => rows.filter((m) => m.role === "user" || m.role === "assistant").length;
  const option = document.getElementById("chat-list").selectedOptions[0];
  if (!option || !option.dataset.count) return;
  const count = Number(option.dataset.count) - said(removed) + said(added);
  option.dataset.count = String(count);
  option.textContent = `${option.dataset.title} · ${count}`;
}

// The beat's messages from *since* on, as kept: they replace its own pending and live items.
// *marked*: with the in-context marker of the drawn window (read from the beat log, written when the
// beat is over: not at reply_end, when only the reply is wanted, quickly).
async function patchFrom(since, own, marked = true) {
  const fresh = await api(`${base}?${query({ since, last: PAGE, mark_from: marked ? view.first : null })}`);
  for (const li of own) li.remove();
  // (A swipe back to a reply with a long story after it brings the next PAGE messages of it; the
  // rest follow as the reader scrolls on.)
  const removed = view.patch(fresh);
  recount(removed, fresh.messages);
  settled({ ...fresh, warnings: state.warnings });
  return fresh;
}

// A beat asked for while the last one is still busy after its reply (scene notes) waits for it;
// the user's words are on the page at once.
async function play(body) {
  if (running && !document.getElementById("stop").hidden) return;  // a reply is streaming
  const previous = beatDone;
  hideChoice();
  if (!view.atEnd) await view.showEnd();
  const mine = body.action === "send" ? sentMessage(body.text) : null;
  scrollDown();
  beatDone = (async () => {
    try { await previous; } catch { /* the last beat's failure was shown already */ }
    await changing;
    await runBeat(body, mine);
  })();
  return beatDone;
}

async function runBeat(body, mine) {
  const live = liveMessage();
  const own = mine ? [mine, live.li] : [live.li];
  live.warnings = [];
  setBusy(true);
  scrollDown();
  const since = changedFrom(body.action);
  let impersonated = "";
  let replied = null;  // the reply's patch, once the reply is complete (reply_end)
  try {
    // A page running the card's scripts: they hear the events up to the request before it is sent.
    await streamPost(`${base}/beat`, scriptsRunning() ? { ...body, scripts: true } : body, (item) => {
      if (item.type === "text_delta") impersonated += item.text;
      if (item.type === "text_retract") impersonated = impersonated.slice(0, Math.max(0, impersonated.length - item.text.length));
      onItem(live, item);
      if (item.type === "reply_end" && body.action !== "impersonate") {
        // The reply is complete and on the screen: the composer is the reader's at once, before any
        // request (the after-beat work — scene notes, compaction — may keep the server and the
        // machine busy for seconds); the reply as kept is patched in when its answer comes.
        setBusy(false);
        setTidying(true);
        usable();
        replied = patchFrom(since, own, false).then(() => kept());
      }
    });
  } catch (error) {
    toast(error, true);
  } finally {
    running = null;
  }
  try {
    if (body.action === "impersonate") {
      live.li.remove();
      composer.value = impersonated.trim();
    } else if (replied) {
      await replied;
      // After the after-beat work: the reply's time (the beat log is written now), the marker,
      // the context bar — the reply is drawn again only when its shown text changed (a status bar).
      // The branch tree was read with the reply; it is read again only if the work added an entry.
      const leafWithReply = state.leaf;
      const fresh = await api(`${base}?${query({ since, last: PAGE, mark_from: view.first })}`);
      view.refresh(fresh);
      settled({ ...fresh, warnings: state.warnings }, fresh.leaf !== leafWithReply);
    } else {
      await patchFrom(since, own);
    }
    if (body.action !== "impersonate") await statusChanged(body.action);
  } catch (error) { toast(error, true); }
  drawWarnings(live.warnings);
  setTidying(false);
  setBusy(false);
  if (!replied) { usable(); kept(); }
  document.body.dataset.beats = String(Number(document.body.dataset.beats || 0) + 1);
  // Quick Replies marked to run after the user's message and after a reply (SillyTavern's automation).
  if (body.action === "send") await quickReplies.automate("user").catch((error) => toast(error, true));
  if (body.action !== "impersonate") await quickReplies.automate("ai").catch((error) => toast(error, true));
}

// The page takes input again (the reply is on the screen: streamed, or drawn as kept).
function usable() {
  performance.mark("pear-usable", { detail: { lastToken } });
}

// The reply is drawn as kept (its buttons, its number), after the usable mark when after-beat work runs.
function kept() {
  performance.mark("pear-kept", { detail: { lastToken } });
}

function setBusy(busy) {
  root.classList.toggle("busy", busy);
  document.getElementById("stop").hidden = !busy;
  for (const id of ["send", "regenerate", "continue", "impersonate"]) document.getElementById(id).disabled = busy;
}

// The after-beat work (scene notes, compaction) runs after the reply: a small note says so.
function setTidying(on) {
  document.getElementById("tidying").hidden = !on;
}

function swipe(step) { play({ action: "swipe", step }); }

document.getElementById("send").addEventListener("click", () => {
  const text = composer.value.trim();
  if (!text) return;
  composer.value = "";
  if (isScript(text)) {  // SillyTavern's chat bar: a "/" line is STscript (slash.js)
    runScript(base, text, composer).catch((error) => toast(error.message, true));
    return;
  }
  play({ action: "send", text });
});
attachAutocomplete(composer, document.getElementById("slash-help"));
const quickReplies = new QuickReplies({
  base, card, chatId, composer,
  bar: document.getElementById("quick-replies"),
  send: (text) => play({ action: "send", text }),
});
document.getElementById("quick-reply-manager").addEventListener("click", () => {
  quickReplies.manage().catch((error) => toast(error.message, true));
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
  const messages = view.rows;
  const action = hotkey({
    key: event.key, ctrl: event.ctrlKey, alt: event.altKey, shift: event.shiftKey, meta: event.metaKey,
    composing: event.isComposing || event.keyCode === 229,
    field: target === composer ? "composer" : inField ? "other" : "none",
    typed: composer.value.trim() !== "",
  }, {
    running: Boolean(running) && !document.getElementById("stop").hidden, editing: Boolean(list.querySelector(".edit-box")), swipe: view.atEnd ? view.swipe : { position: 0, count: 0, generate: false },
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
    case "cancel-edit": cancelEdit(); composer.focus(); break;
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
  if (running) post(`/api/beats/${running}/stop`, {}).catch((error) => toast(error, true));
});
document.getElementById("mode").addEventListener("change", (event) => change("mode", { mode: event.target.value }));
document.getElementById("new-chat").addEventListener("click", async () => {
  try {
    const persona = document.getElementById("new-persona").value;
    const fresh = await post(`/api/chats/${encodeURIComponent(card)}`, persona ? { persona } : {});
    location.href = `/chat/${encodeURIComponent(card)}/${encodeURIComponent(fresh.chat_id)}`;
  } catch (error) { toast(error, true); }
});
// The same window again (the language changed, another persona speaks from now on).
async function redraw() {
  const fresh = await api(`${base}?${query(view.query())}`);
  view.draw(fresh);
  settled(fresh);
  translate(root);
}
document.addEventListener("pear-lang", () => {
  view.redraw();
  drawChrome();
  if (lastTree) drawTree(document.getElementById("tree"), lastTree.tree, lastTree.leaf, goto);
});
document.addEventListener("pear-chat-changed", () => { redraw().catch((error) => toast(error, true)); });
document.getElementById("tree-panel").addEventListener("toggle", () => loadTree());

// SillyTavern's "delete messages" (pick_messages.js): the window is drawn again around the first one.
pickMessages(root, list, (indices) => change("delete", { indices }, Math.max(0, Math.min(...indices) - 1)));

// The card's chats, newest first, with their message counts; read again after every change (a beat,
// a branch, a deletion) so the picker never lists a chat that is gone or a stale count.
async function loadChats() {
  const select = document.getElementById("chat-list");
  const chats = (await api(`/api/chats/${encodeURIComponent(card)}`)).reverse();
  select.textContent = "";
  for (const chat of chats) {
    const option = document.createElement("option");
    option.value = chat.chat_id;
    option.dataset.title = chat.title || chat.chat_id;
    option.dataset.count = String(chat.messages);
    option.textContent = `${option.dataset.title} · ${chat.messages}`;
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
  } catch (error) { toast(error, true); }
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
  } catch (error) { toast(error, true); }
});
document.getElementById("undo-remove").addEventListener("click", async () => {
  try {
    await post("/api/vault/restore", undo);
    location.reload();
  } catch (error) { toast(error, true); }
});

// Connection profiles (SillyTavern's): one choice puts a connection, model and preset in force; this
// chat answers with them from its next beat.
async function loadProfiles() {
  const select = document.getElementById("connection-profile");
  const settings = await api("/api/settings");
  select.textContent = "";
  if (!settings.profiles.length) { select.hidden = true; return; }
  const none = document.createElement("option");
  none.value = "";
  none.textContent = t("（当前模型）", "(current model)");
  select.append(none);
  for (const profile of settings.profiles) {
    const option = document.createElement("option");
    option.value = profile.name;
    option.textContent = `${t("配置", "Profile")}：${profile.name}`;
    select.append(option);
  }
  select.value = settings.active_profile;
  select.hidden = false;
}
document.getElementById("connection-profile").addEventListener("change", async (event) => {
  const name = event.target.value;
  if (!name) return;
  try {
    await post(`/api/settings/profiles/${encodeURIComponent(name)}/apply`, {});
    await redraw();
    toast(t(`已切换到「${name}」（${state.model}）`, `Now using "${name}" (${state.model})`));
  } catch (error) { toast(error, true); }
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

// The chat is ready once its window is drawn (the picker and personas may come a moment later);
// the page says it is loaded when all of it is.
const drawn = refresh().then(() => performance.mark("pear-ready"));
Promise.all([drawn, loadPersonas(), loadChats(), loadProfiles(), quickReplies.load()]).then(async () => {
  document.body.dataset.ready = "1";
  loadTree();
  // Quick Replies that run on their own: once per browser session at start, and each time a chat opens.
  if (!sessionStorage.getItem("pear-qr-started")) {
    sessionStorage.setItem("pear-qr-started", "1");
    await quickReplies.automate("startup");
  }
  await quickReplies.automate("chat_change");
}).catch((error) => toast(error, true));
