// A card's status bar: the front-end document its display regex made (web/status_frame.py says which)
// runs in an <iframe sandbox="allow-scripts"> — never allow-same-origin: the frame has an opaque
// origin and cannot touch the page, its storage or the API — with a CSP in its srcdoc that loads
// nothing from the network.  The frame's bridge (frame_bridge.js) gets the chat's data as a copy:
// the variables of its own message and the latest one (GET …/variables), their text, the chat's
// variables, put into the srcdoc and sent again with the tavern / MVU events after each beat.
//
// What the page accepts from a frame: one "hello" on the window carrying the nonce of its srcdoc,
// from the window of a frame drawn here (answered with a MessagePort and the data); then on that
// port "size" (its height).  Nothing else is answered and nothing a frame sends changes the chat;
// what is refused is counted on <body data-status-refused>.
import { api, toast } from "./common.js";
import { lang, t } from "./i18n.js";
import { inert } from "./card_html.js";
import { frameIdentity, scriptNote } from "./script_panel.js";
import { attachScripts, barCall, barsMayWrite, scriptsChanged } from "./script_frames.js";
import { cardModule, onHostAnswered } from "./remote_modules.js";

// blob: for the bar's remote modules, handed over as text and made modules in the frame (no host named).
const CSP = "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' blob:; style-src 'unsafe-inline'; "
  + "img-src data: blob:; font-src data:; media-src data: blob:; base-uri 'none'; form-action 'none'";
const STYLE = "*,*::before,*::after{box-sizing:border-box}html,body{margin:0;padding:0;max-width:100%}"
  + "body{font-family:\"WenQuanYi Micro Hei\",sans-serif;overflow-wrap:anywhere}img,video,table{max-width:100%}";
const MAX_HEIGHT = 5000;

let chat = null;  // {base, rows(), names(), scroller()}: attached by the chat page
const live = new Set();  // {frame, messageId, nonce, port, part}
const cache = { last: -1, chat: {}, records: new Map() };
let bridgeText = null;
let guardText = null;
let worldText = null;
let worldNames = null;
const libraries = new Map();
let refused = 0;

// The chat page hands over where its API is and what it has drawn; a card's chat page then starts
// the card's scripts (script_frames.js), which share the bars' process.
export function attachStatusBars(context) {
  chat = context;
  attachScripts(context, restartBars).catch((error) => scriptNote({ id: 0 }, t("脚本", "scripts"), "error", String(error.message)));
}

// A host allowed for the card: the bars that could not load from it are drawn again.
onHostAnswered((card, host, allowed) => {
  if (allowed && chat && chatCard() === card) restartBars();
});

// Every bar drawn again in a new frame (the frames' process was ended: a script froze it).
function restartBars() {
  for (const info of [...live]) {
    info.port?.close();
    live.delete(info);
    if (!info.frame.isConnected) continue;
    const fresh = statusFrame(info.part, { message_id: info.messageId });
    if (fresh) info.frame.replaceWith(fresh);
  }
}

function refuse() {
  refused += 1;
  document.body.dataset.statusRefused = String(refused);
}

// -- the chat's data -----------------------------------------------------------------------------

async function load(ids) {
  const query = [...new Set([...ids, -1])].map((id) => `message=${encodeURIComponent(id)}`).join("&");
  const found = await api(`${chat.base}/variables?${query}`);
  cache.last = found.last;
  cache.chat = found.chat || {};
  for (const message of found.messages) cache.records.set(message.message, message.variables || {});
}

// Frames drawn together ask once.
let batch = null;
function need(id) {
  if (!batch) {
    const ids = new Set();
    const done = new Promise((resolve) => { setTimeout(resolve, 0); }).then(() => { batch = null; return load(ids); });
    batch = { ids, done };
  }
  batch.ids.add(id);
  return batch.done;
}

function shownMessage(id) {
  const rows = chat.rows().filter((row) => row.message_id === id && (row.role === "user" || row.role === "assistant"));
  const row = rows[rows.length - 1];
  if (!row) return null;
  return { name: row.speaker, role: row.role, is_hidden: row.tags.includes("hidden"), message: row.content };
}

function snapshot(info) {
  const ids = [...new Set([info.messageId, cache.last])].filter((id) => id >= 0);
  const records = {};
  const messages = {};
  for (const id of ids) {
    if (cache.records.has(id)) records[id] = cache.records.get(id);
    const message = shownMessage(id);
    if (message) messages[id] = message;
  }
  return { message_id: info.messageId, last: cache.last, chat: cache.chat, records, messages, names: chat.names() };
}

// -- the frame's document ------------------------------------------------------------------------

async function text(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.text()).replace(/<\/script/gi, "<\\/script");
}

function bridge() {
  if (!bridgeText) bridgeText = text(new URL("frame_bridge.js", import.meta.url).href);
  return bridgeText;
}

// What the CSP cannot close (WebRTC, frames in the frame): the frame's first script, frame_guard.js.
function guard() {
  if (!guardText) guardText = text(new URL("frame_guard.js", import.meta.url).href);
  return guardText;
}

// fetch and XMLHttpRequest through the page (frame_fetch.js), for the bridge to install.
let fetchText = null;
function fetcher() {
  if (!fetchText) fetchText = text(new URL("frame_fetch.js", import.meta.url).href);
  return fetchText;
}

// The globals and the host TavernHelper's frames have (frame_world.js), for the bridge to fill.
function world() {
  if (!worldText) worldText = text(new URL("frame_world.js", import.meta.url).href);
  return worldText;
}

// TavernHelper's function names (the refused ones throw their reason in a frame).
function names() {
  if (!worldNames) worldNames = api("/api/frame-world");
  return worldNames;
}

// bar_writes.js when the card's scripts are allowed (a bar then writes as a script does), else null.
let writesText = null;
async function writer() {
  if (!(await barsMayWrite())) return null;
  if (!writesText) writesText = text(new URL("bar_writes.js", import.meta.url).href);
  return writesText;
}

function library(name) {
  if (!libraries.has(name)) libraries.set(name, text(`/api/frame-libs/${encodeURIComponent(name)}`));
  return libraries.get(name);
}

function newNonce() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// -- remote modules: a bar's <script src>, style sheets and module imports from the web ----------------
// Each comes from the server (remote_modules.js): the card's own, asked once per host, fetched once,
// from the data folder after.  Classic scripts and style sheets go into the document in their place;
// modules (with their own imports) go to the frame's bridge as text.  What is refused is a line.
function chatCard() {
  const parts = chat.base.split("/");  // /api/chats/<card>/<chat>; a group's members: not yet
  return parts[2] === "chats" ? decodeURIComponent(parts[3]) : null;
}

async function remoteOf(part) {
  const remote = part.remote || [];
  let html = part.frame;
  const modules = {};
  const refusedLoads = [];
  if (!remote.length) return { html, modules, refusedLoads };
  const card = chatCard();
  // The frame's one line names each (file and host); why is the script panel's line.
  const refuse = (url, error) => {
    if (!refusedLoads.includes(url)) refusedLoads.push(url);
    scriptNote({ id: 0 }, t("状态栏", "status bar"), "blocked", `${url}：${error.message}`);
  };
  async function tree(url) {
    if (url in modules) return;
    modules[url] = null;
    try {
      if (!card) throw new Error(t("群聊里还不加载远程模块", "remote modules are not loaded in group chats yet"));
      const found = await cardModule(card, url, true, false);
      modules[url] = { code: found.code, deps: found.deps };
      for (const dep of found.deps) await tree(dep);
    } catch (error) {
      delete modules[url];
      refuse(url, error);
    }
  }
  for (const [index, item] of remote.entries()) {
    if (item.kind === "inline") { for (const dep of item.deps) await tree(dep); continue; }
    if (item.kind === "module") { await tree(item.url); continue; }
    const tag = item.kind === "style" ? "style" : "script";
    const marker = `<${tag} data-pear-remote="${index}"></${tag}>`;
    let body = "";
    try {
      if (!card) throw new Error(t("群聊里还不加载远程模块", "remote modules are not loaded in group chats yet"));
      body = (await cardModule(card, item.url, false, false)).code.replace(new RegExp(`</${tag}`, "gi"), `<\\/${tag}`);
    } catch (error) {
      refuse(item.url, error);
    }
    html = html.replace(marker, () => `<${tag}>${body}</${tag}>`);
  }
  return { html, modules, refusedLoads };
}

function documentOf(info, [guardCode, worldCode, fetchCode, bridgeCode], libraryCode, known, remote, writes) {
  const boot = { nonce: info.nonce, lang: lang(), writes: writes !== null, blocked: [...info.part.blocked, ...remote.refusedLoads],
    state: snapshot(info), refused: known.refused, remote: { items: info.part.remote || [], modules: remote.modules } };
  const data = JSON.stringify(boot).replace(/</g, "\\u003c");
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}">`
    + `<meta http-equiv="x-dns-prefetch-control" content="off">`
    + `<script>${guardCode}</script>`
    + `<style>${STYLE}</style><script type="application/json" id="pear-frame-data">${data}</script>`
    + `<script>${worldCode}</script><script>${fetchCode}</script>${writes === null ? "" : `<script>${writes}</script>`}<script>${bridgeCode}</script>${libraryCode.map((code) => `<script>${code}</script>`).join("")}`
    + inert(remote.html);
}

// The frame for *part* ({frame, libs, blocked}) of *message*; null when no chat is attached (a page
// without the bridge draws the document in the script-less frame instead).
export function statusFrame(part, message) {
  if (!chat || message.message_id == null) return null;
  const frame = document.createElement("iframe");
  frame.className = "card-html status-frame";
  frame.setAttribute("sandbox", "allow-scripts");  // and nothing else: no same origin, forms, popups, top navigation
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.title = t("状态栏", "status bar");
  frame.style.height = "0";
  const info = { frame, messageId: message.message_id, nonce: newNonce(), port: null, part, who: frameIdentity() };
  live.add(info);
  watcher().observe(frame);
  frames.set(frame, info);
  return frame;
}

// A bar's document is made when it comes near the screen: a window of 100 messages may hold 50 bars,
// each running its libraries and scripts.
function fill(info) {
  Promise.all([Promise.all([guard(), world(), fetcher(), bridge()]), Promise.all(info.part.libs.map(library)), names(),
    need(info.messageId), remoteOf(info.part), writer()])
    .then(([own, libraryCode, known, , remote, writes]) => {
      info.frame.srcdoc = documentOf(info, own, libraryCode, known, remote, writes);
    })
    .catch((error) => {
      info.frame.srcdoc = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'"><p>⚠ ${String(error.message)
        .replace(/[<&]/g, (c) => (c === "<" ? "&lt;" : "&amp;"))}</p>`;
    });
}

const frames = new WeakMap();  // frame → its info, until it is made
let nearby = null;
// Near means within 800 px of what the messages' scroller shows (the list itself on a wide screen:
// a margin on the viewport would not reach past the list's own clipping).
function watcher() {
  if (!nearby) {
    const scroller = chat.scroller ? chat.scroller() : null;
    const root = scroller && scroller !== document.scrollingElement ? scroller : null;
    nearby = new IntersectionObserver((seen) => {
      for (const item of seen) {
        if (!item.isIntersecting) continue;
        nearby.unobserve(item.target);
        const info = frames.get(item.target);
        frames.delete(item.target);
        if (info) fill(info);
      }
    }, { root, rootMargin: "800px 0px" });
  }
  return nearby;
}

// -- what frames say -----------------------------------------------------------------------------

// An empty bar takes no room but stays laid out (not hidden): a bar that fills in later (a Vue app
// behind v-cloak) still reports its new size.
function sized(info, height, empty) {
  info.frame.style.height = empty ? "0" : `${Math.min(MAX_HEIGHT, Math.max(0, Math.ceil(height)))}px`;
}

const TOASTS = new Set(["success", "info", "warning", "error"]);
const short = (value, length) => String(value ?? "").slice(0, length);

// Who a bar's calls come from, for the script queue (script_frames.js) and the lines that name it.
function barCaller(info) {
  if (!info.caller) {
    info.caller = { bar: info.messageId, script: { id: null, name: t(`状态栏（第 ${info.messageId} 楼）`, `status bar (message ${info.messageId})`) },
      get port() { return info.port; }, who: info.who };
  }
  return info.caller;
}

function onPort(info, event) {
  const data = event.data;
  if (data && typeof data === "object" && data.kind === "size" && Number.isFinite(data.height)) {
    sized(info, data.height, data.empty === true);
  } else if (data && typeof data === "object" && data.kind === "note" && typeof data.text === "string") {
    // An error the bar's code let escape, a TavernHelper function that does not exist here.
    scriptNote(info.who, t(`状态栏（第 ${info.messageId} 楼）`, `status bar (message ${info.messageId})`),
      short(data.note, 20), short(data.text, 300), Number(data.count) || 1);
  } else if (data && typeof data === "object" && data.kind === "fetch" && Number.isInteger(data.id) && typeof data.url === "string") {
    fetchFor(info, data.id, data.url.slice(0, 4000));
  } else if (data && typeof data === "object" && data.kind === "call" && Number.isInteger(data.id)) {
    // A write of the bar (bar_writes.js), sent as a script frame's call; refused when scripts are not allowed.
    if (!barCall(barCaller(info), data)) {
      refuse();
      info.port.postMessage({ kind: "answer", id: data.id, error: t("状态栏只能读取：此卡的脚本没有允许运行", "status bars only read: this card's scripts are not allowed") });
    }
  } else if (data && typeof data === "object" && data.kind === "toast" && TOASTS.has(data.type)) {
    const title = short(data.title, 80);
    toast(`${title ? `${title}：` : ""}${short(data.message, 300)}`, data.type === "error");
  } else {
    refuse();
  }
}

// What a bar fetches itself (`$('body').load(url)`, frame_fetch.js): the card's remote text, asked once
// per host (the bar waits for the answer), fetched once, from the data folder after.
function fetchFor(info, id, url) {
  const card = chatCard();
  const found = card ? cardModule(card, url, false, true)
    : Promise.reject(new Error(t("群聊里还不加载远程模块", "remote modules are not loaded in group chats yet")));
  found.then((answer) => info.port?.postMessage({ kind: "fetched", id, found: answer }),
    (error) => info.port?.postMessage({ kind: "fetched", id, error: String(error.message) }));
}

window.addEventListener("message", (event) => {
  const info = [...live].find((item) => item.frame.contentWindow === event.source);
  if (!info) return;  // not one of ours (the page's own messages, other windows)
  const data = event.data;
  const hello = event.origin === "null" && data && typeof data === "object" && data.pear === "frame"
    && data.kind === "hello" && data.nonce === info.nonce && !info.port;
  if (!hello) { refuse(); return; }
  const channel = new MessageChannel();
  info.port = channel.port1;
  info.port.onmessage = (message) => onPort(info, message);
  event.source.postMessage({ pear: "page", kind: "port", nonce: info.nonce, state: snapshot(info) }, "*", [channel.port2]);
});

// -- after a beat or a change ---------------------------------------------------------------------

// What TavernHelper / MVU would have said of *action* (the chat page's beat or change), in order.
function eventsOf(action, latest, before) {
  const last = cache.last;
  const replied = [["message_received", last], ["mag_variable_update_ended", latest, before], ["message_updated", last]];
  switch (action) {
    case "send": return [["message_sent", Math.max(0, last - 1)], ...replied];
    case "swipe": return [["message_swiped", last], ...replied];
    case "regenerate": case "continue": return replied;
    default: return [["message_updated", last]];
  }
}

// The chat changed (*action*: a beat's or an edit's): frames still on the page get the data again
// and the events; frames no longer drawn are let go.
export async function statusChanged(action) {
  // The card scripts hear the beat's events, and what their listeners wrote is kept, before this ends
  // (the beat counts as done): the next send or swipe reads it, as SillyTavern awaits the listeners.
  const scripts = scriptsChanged(action).catch((error) => scriptNote({ id: 0 }, t("脚本", "scripts"), "error", String(error.message)));
  for (const info of [...live]) {
    if (!info.frame.isConnected) { info.port?.close(); live.delete(info); }
  }
  if (!chat || !live.size) { await scripts; return; }
  const before = cache.records.get(cache.last) || {};
  await load([...live].map((info) => info.messageId));
  const latest = cache.records.get(cache.last) || {};
  const events = eventsOf(action, latest, before);
  for (const info of live) info.port?.postMessage({ kind: "update", state: snapshot(info), events });
  await scripts;
}
