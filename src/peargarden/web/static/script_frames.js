// A card's TavernHelper scripts on its chat page (issue 45): each enabled script of a card whose
// scripts the user allowed runs in an <iframe sandbox="allow-scripts"> of its own — an opaque origin,
// the CSP of a status bar (nothing from the network), frame_guard.js first — with TavernHelper's API
// (script_bridge.js over frame_world.js).  Its calls come here on its port and go to the server in
// order (POST …/scripts/call, app/play/page_scripts.py runs them on the chat); the answers, the chat's
// new data and the events the calls made go back to the frames.  After each beat the frames get the
// chat's data again and the tavern events of the beat, frame after frame, each frame's listeners
// started before the next frame's (SillyTavern awaits each listener in turn); the events up to the
// beat's request come while it waits, each listener awaited (script_live.js).
//
// What a script draws "into the page" is drawn in its own frame, shown in the script panel under the
// warnings (docked, or floating at a click); a frame that draws nothing takes no room.  Its buttons
// go to the chat bar, above the Quick Replies; a click is the button's event (its frame names it) in
// every frame.  Its toasts are the page's.
//
// Bounded: the frames of the page's card scripts and status bars run in one process of their own (the
// browser's, for sandboxed frames), so a script that loops never stops this page — the composer types
// and sends — but stops every other frame.  The page pings each frame; when none has answered for
// FROZEN_MS (QUIET_FROZEN_MS when no script's start, click or event is pending) the frames are all
// taken out (which ends that process), the script that was running is named in one line and left
// stopped, and the others start again.
import { api, toast } from "./common.js";
import { lang, t } from "./i18n.js";
import { cardModule } from "./remote_modules.js";
import { forgetGlobals, onGlobal, sharedGlobals } from "./frame_globals.js";
import { frameIdentity, scriptNote } from "./script_panel.js";
import { frameWorld, isGroupBase, noteWaiting, scriptKey, scriptTitle } from "./group_scripts.js";

// blob: is the frame's own text made a module (remote modules come as text from the page), no more
// than eval, which a script has anyway; no host is named: nothing is fetched from the network.
const CSP = "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' blob:; style-src 'unsafe-inline'; "
  + "img-src data: blob:; font-src data:; media-src data: blob:; base-uri 'none'; form-action 'none'";
const STYLE = "html,body{margin:0;padding:0}body{font-family:\"WenQuanYi Micro Hei\",sans-serif;overflow-wrap:anywhere}";
const LIBRARIES = ["jquery", "lodash", "yaml", "zod"];
// The global Vue (its npm package) for a script that uses Vue or Pinia: app/play/packaged_modules.py's test.
const usesVue = (code) => /\b(?:Vue|vue|pinia|Pinia)\b/.test(code);
const START_WAIT_MS = 3000;  // a script that has not said it is done by then: the next one starts anyway
const ACK_WAIT_MS = 1000;  // an event a frame has not taken by then: the next frame gets it anyway
const PING_MS = 400;
// Silent this long while a script's start, a click on its button or an event for it is pending: the
// process is taken as frozen and that script named.  With nothing pending, a silence is as likely a
// busy machine as a loop in a timer: 房东模拟器's 23 scripts after one beat left the process silent for
// 2.7–3.2 s on a 2-core machine at load 8–10, and at 1.5 s every frame was taken out and started
// again (their state lost) after each beat.  So that verdict waits QUIET_FROZEN_MS.
const FROZEN_MS = 1500;
const QUIET_FROZEN_MS = 10000;
const MAX_HEIGHT = 4000;
const MAX_WAITING = 300;  // calls of one frame waiting for the server

let context = null;  // {base, names()} from the chat page
let loaded = null;  // the server's answer: {scripts, world, names, allowed}
const frames = [];  // {script, frame, nonce, port, ready, lastPong, who, busy, stopped}
const stoppedScripts = new Set();
let queue = [];  // calls waiting for the server: {info, id, name, args, kind}
let sending = false;
let pingSeq = 0;
let generation = 0;  // a new one each time the frames are started again
const LOAD_GRACE_MS = 4000;  // a frame that has not said hello by then counts as not answering
let eventSeq = 0;
const files = new Map();
// Whether the card's scripts are allowed (the server's answer), for the status bars: a bar then writes
// through the calls below as a script does (status_frame.js, bar_writes.js).
let allowedAnswer = null;
const allowedKnown = new Promise((resolve) => { allowedAnswer = resolve; });
export const barsMayWrite = () => allowedKnown;

function text(path) {
  if (!files.has(path)) {
    files.set(path, fetch(path).then((response) => {
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      return response.text();
    }).then((body) => body.replace(/<\/script/gi, "<\\/script")));
  }
  return files.get(path);
}
const staticFile = (name) => text(new URL(name, import.meta.url).href);
const library = (name) => text(`/api/frame-libs/${encodeURIComponent(name)}`);

function newNonce() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// -- the panel the frames are shown in, and the buttons ------------------------------------------

function panel() {
  let box = document.getElementById("script-frames");
  if (!box) {
    box = document.createElement("section");
    box.id = "script-frames";
    box.className = "script-frames";
    const anchor = document.getElementById("warnings");
    if (anchor) anchor.after(box); else document.body.append(box);
  }
  return box;
}

function buttonBar() {
  let bar = document.getElementById("script-buttons");
  if (!bar) {
    bar = document.createElement("div");
    bar.id = "script-buttons";
    bar.className = "script-buttons";
    const anchor = document.getElementById("quick-replies");
    if (anchor) anchor.before(bar); else panel().before(bar);
  }
  return bar;
}

function drawButtons() {
  const bar = buttonBar();
  bar.textContent = "";
  for (const info of frames) {
    if (info.stopped) continue;
    for (const name of info.buttons) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button script-button";
      button.textContent = name;
      button.title = info.script.name;
      button.addEventListener("click", () => {
        // Busy until it answers a ping sent after the click: a handler that loops is named.
        info.busy = t(`按钮「${name}」`, `button "${name}"`);
        info.busyAfter = pingSeq;
        info.port?.postMessage({ kind: "button", name });
      });
      bar.append(button);
    }
  }
  bar.hidden = !bar.childElementCount;
}

// -- a script's frame --------------------------------------------------------------------------------

async function documentOf(info) {
  const libraries = [...LIBRARIES, ...(usesVue(info.script.code) ? ["vue"] : [])];
  const [guard, world, apis, bridge, fetcher, nested, ...libs] = await Promise.all([staticFile("frame_guard.js"),
    staticFile("frame_world.js"), staticFile("frame_apis.js"), staticFile("script_bridge.js"), staticFile("frame_fetch.js"),
    staticFile("nested_frames.js"), ...libraries.map(library)]);
  const chatId = decodeURIComponent(context.base.split("/").pop());
  const boot = { nonce: info.nonce, lang: lang(), chat: chatId, world: frameWorld(info.script, loaded.world), names: loaded.names,
    script: { id: info.script.id, name: info.script.name }, globals: sharedGlobals(info) };
  const data = JSON.stringify(boot).replace(/</g, "\\u003c");
  const code = info.script.code.replace(/<\/script/gi, "<\\/script");
  return `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}">`
    + `<meta http-equiv="x-dns-prefetch-control" content="off"><script data-pear="guard" data-nested="on">${guard}</script>`
    + `<style>${STYLE}</style><script type="application/json" id="pear-frame-data">${data}</script>`
    + `<script data-pear="world">${world}</script>`
    + libs.map((lib, i) => `<script data-pear="lib-${libraries[i]}">${lib}</script>`).join("")
    + `<script data-pear="fetch">${fetcher}</script><script>${nested}</script><script data-pear="apis">${apis}</script>`
    + `<script data-pear="bridge">${bridge}</script>`
    + `<body></body><script>__pear.run(async function () {\n"use strict";\n${code}\n});</script>`;
}

function frameFor(script) {
  const item = document.createElement("div");
  // Empty (drawing nothing) until its frame says otherwise: no room taken, but laid out — a frame
  // shown as nothing would lay nothing out and never tell its size.
  item.className = "script-frame empty";
  const head = document.createElement("div");
  head.className = "script-frame-head";
  const title = document.createElement("span");
  title.textContent = scriptTitle(script);
  const float = document.createElement("button");
  float.type = "button";
  float.className = "script-float";
  float.textContent = t("浮动", "Float");
  float.addEventListener("click", () => item.classList.toggle("floating"));
  head.append(title, float);
  const frame = document.createElement("iframe");
  frame.className = "script-frame-view";
  frame.setAttribute("sandbox", "allow-scripts");  // and nothing else: no same origin, forms, popups, top navigation
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.title = t(`脚本：${script.name}`, `script: ${script.name}`);
  frame.style.height = "0";
  item.append(head, frame);
  panel().append(item);
  return { item, frame };
}

async function start(script) {
  const { item, frame } = frameFor(script);
  const info = { script, item, frame, nonce: newNonce(), port: null, ready: false, lastPong: performance.now(),
    who: frameIdentity(), busy: "start", stopped: false, buttons: [...script.buttons], waiting: new Map(),
    early: [] };
  frames.push(info);
  drawButtons();
  frame.srcdoc = await documentOf(info);
  info.lastPong = performance.now() + LOAD_GRACE_MS - FROZEN_MS;
  return new Promise((resolve) => {
    info.started = resolve;
    setTimeout(() => { if (info.busy === "start" && info.port) info.busy = null; resolve(); }, START_WAIT_MS);
  });
}

function say(info, kind, detail, count = 1) {
  scriptNote(info.who, t(`脚本「${info.script.name}」`, `script "${info.script.name}"`), kind, detail, count);
}

const short = (value, length) => String(value ?? "").slice(0, length);
const TOASTS = new Set(["success", "info", "warning", "error"]);

function onPort(info, event) {
  const data = event.data;
  if (!data || typeof data !== "object" || info.stopped) return;
  info.lastPong = performance.now();
  switch (data.kind) {
    case "call":
      if (!Number.isInteger(data.id) || typeof data.name !== "string" || !Array.isArray(data.args)) {
        say(info, "refused", t("看不懂的调用", "a call that could not be read"));
      } else if (queue.filter((call) => call.info === info).length >= MAX_WAITING) {
        // A script that floods the bridge: its calls past the bound fail at once, the server never sees them.
        say(info, "refused", t(`调用太多（同时等待的最多 ${MAX_WAITING} 个）`, `too many calls (at most ${MAX_WAITING} waiting)`));
        info.port.postMessage({ kind: "answer", id: data.id, error: t("调用太多，已拒绝", "too many calls: refused") });
      } else {
        queue.push({ info, id: data.id, name: data.name, args: data.args });
        flush();
      }
      break;
    case "module": {
      // A module the script imports: the page fetches it on the frame's behalf (the card's allowance).
      if (!Number.isInteger(data.id) || typeof data.url !== "string") break;
      const card = info.script.card || decodeURIComponent(context.base.split("/")[3]);
      cardModule(card, data.url.slice(0, 4000), data.module !== false).then(
        (found) => info.port?.postMessage({ kind: "answer", id: data.id, json: JSON.stringify(found) }),
        (error) => info.port?.postMessage({ kind: "answer", id: data.id, error: String(error.message) }));
      break;
    }
    case "emit": emitAll(short(data.type, 200), Array.isArray(data.args) ? data.args : [], info); break;
    case "global": case "global-call": case "global-answer":
      onGlobal(info, data, frames, (who, line) => say(who, "refused", line), toFrame);
      break;
    case "ready":
      info.ready = true;
      if (info.busy === "start") info.busy = null;
      if (info.started) info.started();
      break;
    case "ack": {
      const done = info.waiting.get(data.seq);
      info.waiting.delete(data.seq);
      if (done) done(data);
      break;
    }
    case "pong":
      if (info.busyAfter !== undefined && data.seq > info.busyAfter) { info.busy = null; info.busyAfter = undefined; }
      break;
    case "size": {
      const height = Math.min(MAX_HEIGHT, Math.max(0, Math.ceil(Number(data.height) || 0)));
      info.frame.style.height = data.empty ? "0" : `${height}px`;
      info.item.classList.toggle("empty", data.empty === true);
      break;
    }
    case "note": say(info, short(data.note, 20), short(data.text, 300), Number(data.count) || 1); break;
    case "toast":
      if (TOASTS.has(data.type)) {
        const title = short(data.title, 80);
        toast(`${title ? `${title}：` : ""}${short(data.message, 300)}`, data.type === "error");
      }
      break;
    case "buttons":
      if (Array.isArray(data.buttons)) { info.buttons = data.buttons.slice(0, 20).map((b) => short(b, 40)); drawButtons(); }
      break;
    default: say(info, "refused", t(`页面不接受的消息（${short(data.kind, 20)}）`, `a message the page does not take (${short(data.kind, 20)})`));
  }
}

window.addEventListener("message", (event) => {
  const info = frames.find((item) => item.frame.contentWindow === event.source);
  if (!info) return;  // a status bar's, or not ours
  const data = event.data;
  const hello = event.origin === "null" && data && typeof data === "object" && data.pear === "frame"
    && data.kind === "hello" && data.nonce === info.nonce && !info.port;
  if (!hello) { say(info, "refused", t("伪造的消息", "a forged message")); return; }
  const channel = new MessageChannel();
  info.port = channel.port1;
  info.port.onmessage = (message) => onPort(info, message);
  event.source.postMessage({ pear: "page", kind: "port", nonce: info.nonce }, "*", [channel.port2]);
  for (const message of info.early.splice(0)) info.port.postMessage(message);
});

// What the page tells a frame: a frame still loading (started again during a beat, say) gets it once it
// says hello — its boot copy of the chat is older, and its listeners are already there to hear it.
function toFrame(info, message) {
  if (info.port) info.port.postMessage(message);
  else if (!info.stopped) info.early.push(message);
}

// -- calls to the server, in order ---------------------------------------------------------------------

// Whether the server has answered every call the frames made, on <body data-script-calls>: "0" once it
// has (a TavernHelper write is made on the frame's copy at once and reaches the chat with its call).
let inFlight = 0;
function noteCalls() {
  document.body.dataset.scriptCalls = String(queue.length + inFlight);
}

async function flush() {
  noteCalls();
  if (sending || !queue.length) return;
  sending = true;
  const batch = queue.slice(0, 100);
  queue = queue.slice(batch.length);
  inFlight = batch.length;
  try {
    const answer = await api(`${context.base}/scripts/call`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ calls: batch.map((call) => (call.info.bar !== undefined
        ? { bar: call.info.bar, name: call.name, args: call.args }
        : { card: call.info.script.card, script: call.info.script.id, name: call.name, args: call.args })) }),
    });
    // The chat's new data first: a script that awaited a call reads what the call did at once.
    loaded.world = answer.world;
    for (const info of frames) toFrame(info, { kind: "world", world: frameWorld(info.script, answer.world), settled: true });
    batch.forEach((call, index) => {
      const result = answer.answers[index] || { error: "没有回答" };
      call.info.port?.postMessage({ kind: "answer", id: call.id, ...result });
    });
    for (const [type, args] of answer.events || []) await emitAll(type, args);
    if (batch.some((call) => !["replaceVariables", "insertOrAssignVariables", "insertVariables", "deleteVariable",
      "replaceScriptButtons", "replaceScriptInfo", "getWorldbook", "generate", "generateRaw", "_injectPrompts",
      "uninjectPrompts"].includes(call.name))) {
      document.dispatchEvent(new CustomEvent("pear-chat-changed"));  // the chat page draws the chat again
    }
  } catch (error) {
    for (const call of batch) call.info.port?.postMessage({ kind: "answer", id: call.id, error: String(error.message) });
  } finally {
    sending = false;
    inFlight = 0;
    noteCalls();
    if (queue.length) flush();
  }
}

// A status bar's call ({id, name, args}) from *caller* ({bar, script: {name}, port}), sent with the
// scripts' calls; false when the card's scripts are not allowed (the bar stays read-only).
export function barCall(caller, data) {
  if (!loaded || loaded.allowed !== true || isGroupBase(context.base)) return false;  // a group's bars read only
  if (typeof data.name !== "string" || !Array.isArray(data.args)) return false;
  if (queue.filter((call) => call.info === caller).length >= MAX_WAITING) {
    caller.port?.postMessage({ kind: "answer", id: data.id, error: t("调用太多，已拒绝", "too many calls: refused") });
    return true;
  }
  queue.push({ info: caller, id: data.id, name: data.name.slice(0, 100), args: data.args });
  flush();
  return true;
}

// -- events -------------------------------------------------------------------------------------------

// *type* to every running frame but *from* (which ran its own listeners), one frame after another.
// *waitMs* (a beat's events before its request: script_live.js): each frame's listeners are awaited,
// as SillyTavern awaits them, and hand back the arguments as they left them to the next frame, all
// within *waitMs*; the answer is those arguments and the script that did not finish in time (named
// in the panel), if one did not.
async function emitAll(type, args, from = null, waitMs = 0) {
  const until = performance.now() + waitMs;
  for (const info of frames) {
    if (info === from || info.stopped) continue;
    eventSeq += 1;
    const seq = eventSeq;
    if (!info.port) { info.early.push({ kind: "event", seq, type, args }); continue; }
    info.busy = type;
    const left = waitMs ? until - performance.now() : ACK_WAIT_MS;
    const answer = left <= 0 ? null : await new Promise((resolve) => {
      info.waiting.set(seq, resolve);
      setTimeout(() => resolve(null), left);
      info.port.postMessage({ kind: "event", seq, type, args, wait: waitMs > 0 });
    });
    if (info.busy === type) info.busy = null;
    if (!waitMs) continue;
    if (!answer) {
      say(info, "slow", t(`处理 ${type} 超过 ${Math.round(waitMs) / 1000} 秒，这一拍没有等它：请求照常发出，没有脚本的改动`,
        `took longer than ${Math.round(waitMs) / 1000} s over ${type}; the beat did not wait: its request went out without the scripts' changes`));
      return { args, slow: info.script.name };
    }
    if (Array.isArray(answer.args)) args = answer.args;
  }
  return { args, slow: null };
}

// -- a beat's events before its request (script_live.js) --------------------------------------------

let heardLive = false;  // the frames heard the beat's events up to its request while it ran
export const scriptsRunning = () => Boolean(loaded && frames.some((info) => !info.stopped && info.port));
export function emitHeard(type, args, waitMs) {
  heardLive = true;
  return emitAll(type, args, null, Math.max(1, waitMs));
}
// The chat the frames read (*kept*: from now on, as after a call).
export function showWorld(world, kept) {
  for (const info of frames) toFrame(info, { kind: "world", world: frameWorld(info.script, world), settled: kept });
  if (kept && loaded) loaded.world = world;
}

// The chat changed (a beat, an edit): the frames get its data again and SillyTavern's events of it,
// in its order, from the server (app/play/page_events.py), each with the chat as a listener would
// have read it then (a view: the first `length` messages, the last one replaced by `last`).
export async function scriptsChanged(action) {
  const live = heardLive ? "&live=1" : "";  // the events up to the request were heard during the beat
  heardLive = false;
  if (!loaded || !frames.length) return;
  const fresh = await api(`${context.base}/scripts/world?action=${encodeURIComponent(action)}${live}`);
  await emitEvents(fresh.events || [], fresh.world);
  await settledCalls();
}

export function viewOf(world, view) {
  if (!view) return world;
  const chat = (world.chat || []).slice(0, view.length);
  if (view.last && chat.length) chat[chat.length - 1] = view.last;
  return { ...world, chat, ...(view.speaker ? { speaker: view.speaker } : {}) };
}

// *events* ([type, args, view]) to the frames, each after the chat it is heard with; *world* after all.
async function emitEvents(events, world) {
  let shown = null;
  for (const [type, args, view] of events) {
    const now = viewOf(world, view);
    if (now !== shown) {
      for (const info of frames) toFrame(info, { kind: "world", world: frameWorld(info.script, now) });
      shown = now;
    }
    await emitAll(type, args);
  }
  loaded.world = world;
  // Settled: the chat as it is now (what a frame's injected prompts' filters read).
  for (const info of frames) {
    toFrame(info, shown !== world ? { kind: "world", world: frameWorld(info.script, world), settled: true } : { kind: "settled" });
  }
}

// The calls the frames have made so far, answered (bounded: a call the server has not answered within
// SETTLE_MS is left to come later).
const SETTLE_MS = 5000;
async function settledCalls() {
  const until = performance.now() + SETTLE_MS;
  while ((sending || queue.length) && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

// -- bounded: a frozen process of frames is ended, the script that froze it named ----------------------

let onRestartBars = null;
function watch() {
  setInterval(() => {
    const now = performance.now();
    const live = frames.filter((info) => !info.stopped);
    for (const info of live) { pingSeq += 1; info.port?.postMessage({ kind: "ping", seq: pingSeq }); }
    const limit = live.some((info) => info.busy) ? FROZEN_MS : QUIET_FROZEN_MS;
    if (!live.length || live.some((info) => now - info.lastPong < limit)) return;
    stopFrozen(limit);
  }, PING_MS);
}

function stopFrozen(limit) {
  // The script that froze the process: the one a click or its start left busy, else the one an
  // event was waiting for (a frame handed an event while another loops waits too: a victim).
  const busy = frames.filter((info) => info.busy && !info.stopped);
  const own = busy.filter((info) => info.busy === "start" || info.busyAfter !== undefined);
  const offender = own.length === 1 ? own[0] : own.length === 0 && busy.length === 1 ? busy[0] : null;
  document.body.dataset.scriptsBusy = busy.map((info) => `${info.script.name}:${info.busy}`).join("|");
  for (const info of frames) { info.port?.close(); info.item.remove(); }
  const others = frames.filter((info) => info !== offender && !info.stopped).map((info) => info.script);
  const named = offender ? offender.script.name : t("某个脚本", "one of the scripts");
  const why = offender && offender.busy !== "start" ? t(`（处理 ${offender.busy} 时）`, ` (handling ${offender.busy})`) : "";
  if (offender) {
    stoppedScripts.add(scriptKey(offender.script));
    say(offender, "stopped", t(`${named} 超过 ${limit / 1000} 秒没有响应${why}，已停止（死循环？）`,
      `${named} did not answer for ${limit / 1000} s${why} and was stopped (an endless loop?)`));
  } else {
    scriptNote({ id: 0 }, t("脚本", "scripts"), "stopped", t(`脚本超过 ${limit / 1000} 秒没有响应，已全部重新启动`,
      `the scripts did not answer for ${limit / 1000} s and were all started again`));
  }
  frames.length = 0;
  forgetGlobals();
  drawButtons();
  if (onRestartBars) onRestartBars();  // the status bars shared the frozen process
  runAll(others);
}

async function runAll(scripts) {
  generation += 1;
  const mine = generation;
  for (const script of scripts) {
    if (mine !== generation) return;  // the frames were started again meanwhile
    if (stoppedScripts.has(scriptKey(script))) continue;
    await start(script);
  }
  drawButtons();
}

// -- start ---------------------------------------------------------------------------------------------

// The chat page's scripts start (a card's chat page: the base is /api/chats/<card>/<chat>; a group
// chat's: /api/groups/<group>/chats/<chat>, its members' scripts, group_scripts.js).
// *restartBars*: draws the page's status bars again (after a frozen process was ended).
export async function attachScripts(chatContext, restartBars) {
  context = chatContext;
  onRestartBars = restartBars;
  if (!context.base.startsWith("/api/chats/") && !isGroupBase(context.base)) { allowedAnswer(false); return; }
  try {
    loaded = await api(`${context.base}/scripts`);
  } finally {
    // A group page's bars stay read-only: a bar's call names no member card to check it against.
    allowedAnswer(Boolean(loaded && loaded.allowed === true && !isGroupBase(context.base)));
  }
  noteWaiting(loaded);
  if (loaded.allowed !== true) {
    if (loaded.count) {
      scriptNote({ id: 0 }, t("脚本", "scripts"), "blocked", t(`此卡有 ${loaded.count} 个脚本，还没有允许运行（在卡片的设置里允许）`,
        `this card has ${loaded.count} scripts, not allowed to run yet (allow them in the card's settings)`));
    }
    return;
  }
  if (!loaded.scripts.length) return;
  watch();
  await runAll(loaded.scripts);
  // A new chat's greeting, received and drawn, once the scripts listen (as SillyTavern's do when they start in time).
  await emitEvents(loaded.opening || [], loaded.world);
  document.body.dataset.scriptsReady = String(frames.length);
}
