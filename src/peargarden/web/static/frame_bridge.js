// The bridge inside a card's status-bar frame (status_frame.js puts this file, its data and the card's
// HTML into the srcdoc of an <iframe sandbox="allow-scripts">).  It gives the card's scripts the part
// of TavernHelper's API status bars call — getVariables, Mvu.getMvuData, waitGlobalInitialized,
// eventOn and the tavern / MVU event names, getChatMessages, getCurrentMessageId — read from a copy of
// the chat's data the page hands over, and kept fresh by the page's updates after each beat.
// Everything here reads; the functions that would change the chat throw, unless the card's scripts are
// allowed: then bar_writes.js (loaded before this) makes them calls the page runs as a script's.  The frame has no origin of
// its own, no network (the CSP), and talks to the page only through the port it is given.
(function () {
  "use strict";
  const realParent = window.parent;  // before the frame world puts its host in its place
  const holder = document.getElementById("pear-frame-data");
  const boot = JSON.parse(holder.textContent);
  holder.remove();
  const nonce = boot.nonce;
  const english = boot.lang === "en";
  const say = (zh, en) => (english ? en : zh);
  let state = boot.state;  // {message_id, last, chat, records: {n: record}, messages: {n: message}, names}
  let port = null;
  let connected = false;
  const waiting = [];  // resolvers of waitGlobalInitialized('Mvu') until the page answered
  const globals = new Map();  // initializeGlobal's names and their waiters

  const clone = (value) => (value === undefined || value === null ? value : structuredClone(value));

  // -- the chat's data -------------------------------------------------------------------------

  function messageNumber(id) {
    const last = state.last;
    let number = id === undefined || id === null || id === "latest" ? last : id;
    if (typeof number === "string" && /^-?\d+$/.test(number.trim())) number = Number(number);
    if (!Number.isInteger(number)) throw new Error(say(`楼层号应是整数：${id}`, `message_id must be an integer: ${id}`));
    const resolved = number < 0 ? last + 1 + number : number;
    if (resolved < 0 || resolved > last) {
      throw new Error(say(`没有第 ${id} 楼（共 ${last + 1} 楼）`, `no message ${id} (the chat has ${last + 1})`));
    }
    return resolved;
  }

  function record(number) {
    const found = state.records[String(number)];
    return found && typeof found === "object" ? found : {};
  }

  function getVariables(option) {
    const type = (option && option.type) || "chat";
    if (type === "message") return clone(record(messageNumber(option.message_id)));
    if (type === "chat") return clone(state.chat || {});
    return {};  // global, character, preset, script, extension: none are shared with frames here
  }

  function merged(target, source) {
    for (const [key, value] of Object.entries(source || {})) {
      const both = value && typeof value === "object" && !Array.isArray(value)
        && target[key] && typeof target[key] === "object" && !Array.isArray(target[key]);
      target[key] = both ? merged(target[key], value) : clone(value);
    }
    return target;
  }

  function getAllVariables() {
    return merged(merged({}, state.chat), record(state.message_id));
  }

  function pathGet(object, path, fallback) {
    const keys = Array.isArray(path) ? path : String(path).replace(/\[(\w+)\]/g, ".$1").split(".").filter((key) => key !== "");
    let value = object;
    for (const key of keys) {
      if (value === null || value === undefined) return fallback;
      value = value[key];
    }
    return value === undefined ? fallback : value;
  }

  function chatMessage(number, withSwipes) {
    const known = state.messages[String(number)];
    if (!known) return null;
    const data = clone(record(number));
    const base = { message_id: number, name: known.name, role: known.role, is_hidden: Boolean(known.is_hidden) };
    if (!withSwipes) return { ...base, message: known.message, data, extra: {} };
    // Only the shown swipe is handed to frames.
    return { ...base, swipe_id: 0, swipes: [known.message], swipes_data: [data], swipes_info: [{}] };
  }

  // getChatMessages(range, {role, hide_state, include_swipes}): the messages of the range the page
  // handed over (the frame's own and the latest), oldest first.
  function getChatMessages(range, option) {
    const last = state.last;
    const text = String(range).trim();
    const parts = text.match(/^(-?\d+)(?:\s*-\s*(-?\d+))?$/);
    if (!parts) throw new Error(say(`看不懂的楼层范围：${range}`, `cannot read the message range: ${range}`));
    const place = (value) => { const n = Number(value); return n < 0 ? last + 1 + n : n; };
    const from = place(parts[1]);
    const to = parts[2] === undefined ? from : place(parts[2]);
    const role = (option && option.role) || "all";
    const hidden = (option && option.hide_state) || "all";
    const out = [];
    for (let number = Math.max(0, Math.min(from, to)); number <= Math.min(last, Math.max(from, to)); number += 1) {
      const message = chatMessage(number, Boolean(option && option.include_swipes));
      if (!message || (role !== "all" && message.role !== role)) continue;
      if ((hidden === "hidden" && !message.is_hidden) || (hidden === "unhidden" && message.is_hidden)) continue;
      out.push(message);
    }
    return out;
  }

  // -- events (within this frame; the page's updates are dispatched here) ------------------------

  const listeners = new Map();
  function listOf(type) {
    if (!listeners.has(type)) listeners.set(type, []);
    return listeners.get(type);
  }
  function eventOn(type, listener) {
    const list = listOf(type);
    if (!list.includes(listener)) list.push(listener);
    return { stop: () => eventRemoveListener(type, listener) };
  }
  function eventMakeFirst(type, listener) {
    eventRemoveListener(type, listener);
    listOf(type).unshift(listener);
    return { stop: () => eventRemoveListener(type, listener) };
  }
  function eventOnce(type, listener) {
    const once = (...args) => { eventRemoveListener(type, once); return listener(...args); };
    return eventOn(type, once);
  }
  function eventRemoveListener(type, listener) {
    const list = listeners.get(type);
    if (list && list.includes(listener)) list.splice(list.indexOf(listener), 1);
  }
  function eventClearListener(listener) {
    for (const type of listeners.keys()) eventRemoveListener(type, listener);
  }
  async function eventEmit(type, ...args) {
    for (const listener of [...(listeners.get(type) || [])]) {
      try { await listener(...args); } catch (error) { console.error(`[${type}]`, error); }
    }
  }

  const tavern_events = {
    MESSAGE_SENT: "message_sent", MESSAGE_RECEIVED: "message_received", MESSAGE_SWIPED: "message_swiped",
    MESSAGE_EDITED: "message_edited", MESSAGE_DELETED: "message_deleted", MESSAGE_UPDATED: "message_updated",
    CHAT_CHANGED: "chat_id_changed", GENERATION_STARTED: "generation_started", GENERATION_ENDED: "generation_ended",
    CHARACTER_MESSAGE_RENDERED: "character_message_rendered", USER_MESSAGE_RENDERED: "user_message_rendered",
  };
  const iframe_events = {
    MESSAGE_IFRAME_RENDER_STARTED: "message_iframe_render_started",
    MESSAGE_IFRAME_RENDER_ENDED: "message_iframe_render_ended",
  };

  // -- what would change the chat --------------------------------------------------------------

  function readOnly(name) {
    return () => {
      throw new Error(say(`状态栏只能读取，不能改动聊天（${name}；此卡的脚本没有允许运行）`,
        `status bars here only read the chat (${name}; this card's scripts are not allowed to run)`));
    };
  }
  const WRITES = ["replaceVariables", "updateVariablesWith", "insertOrAssignVariables", "insertVariables",
    "deleteVariable", "setChatMessages", "setChatMessage", "createChatMessages", "deleteChatMessages",
    "rotateChatMessages", "triggerSlash", "generate", "generateRaw"];

  const Mvu = {
    events: {
      VARIABLE_INITIALIZED: "mag_variable_initiailized",  // (MVU's own spelling)
      VARIABLE_UPDATE_STARTED: "mag_variable_update_started",
      COMMAND_PARSED: "mag_command_parsed",
      VARIABLE_UPDATE_ENDED: "mag_variable_update_ended",
      BEFORE_MESSAGE_UPDATE: "mag_before_message_update",
    },
    getMvuData: (option) => getVariables(option || { type: "chat" }),
    getCurrentMvuData: () => getVariables({ type: "message", message_id: state.message_id }),
    getMvuVariable: (data, path, option) => {
      const category = (option && option.category) || "stat";
      return pathGet(data && data[`${category}_data`], path, option ? option.default_value : undefined);
    },
    replaceMvuData: readOnly("Mvu.replaceMvuData"),
    replaceCurrentMvuData: readOnly("Mvu.replaceCurrentMvuData"),
    setMvuVariable: readOnly("Mvu.setMvuVariable"),
    parseMessage: readOnly("Mvu.parseMessage"),
  };

  function waitGlobalInitialized(name) {
    if (name === "Mvu") {
      return connected ? Promise.resolve(Mvu) : new Promise((resolve) => waiting.push(() => resolve(Mvu)));
    }
    const known = globals.get(name);
    if (known && known.ready) return Promise.resolve(known.value);
    return new Promise((resolve) => {
      const entry = known || { ready: false, value: undefined, waiters: [] };
      entry.waiters.push(resolve);
      globals.set(name, entry);
    });
  }

  function initializeGlobal(name, value) {
    const entry = globals.get(name) || { waiters: [] };
    globals.set(name, { ready: true, value, waiters: [] });
    window[name] = value;
    for (const resolve of entry.waiters) resolve(value);
  }

  function errorCatched(fn) {
    return (...args) => {
      try {
        const result = fn(...args);
        return result && typeof result.catch === "function" ? result.catch((error) => console.error(error)) : result;
      } catch (error) { console.error(error); return undefined; }
    };
  }

  function knownMessages() {
    return Object.keys(state.messages).map(Number).sort((a, b) => a - b).map((number) => {
      const message = state.messages[String(number)];
      return { name: message.name, is_user: message.role === "user", is_system: Boolean(message.is_hidden),
        mes: message.message, variables: [clone(record(number))] };
    });
  }
  function context() {
    return { chat: knownMessages(), name1: state.names.user, name2: state.names.char, characterId: 0, groupId: null,
      chatMetadata: { variables: clone(state.chat || {}) }, mainApi: "openai" };
  }

  const api = {
    getVariables, getAllVariables, getChatMessages, waitGlobalInitialized, initializeGlobal, errorCatched,
    getCurrentMessageId: () => state.message_id,
    getLastMessageId: () => state.last,
    getIframeName: () => `TH-message--${state.message_id}--0`,
    eventOn, eventOnce, eventMakeFirst, eventMakeLast: eventOn, eventOnButton: () => {}, eventEmit,
    eventEmitAndWait: (type, ...args) => { for (const listener of [...(listeners.get(type) || [])]) listener(...args); },
    eventRemoveListener, eventClearListener,
    eventClearEvent: (type) => listeners.delete(type),
    eventClearAll: () => listeners.clear(),
    tavern_events, iframe_events, Mvu,
  };
  for (const name of WRITES) api[name] = readOnly(name);
  // EjsTemplate's functions are the server's (a script's frame has them): a bar calls no server, so
  // each throws one line, counted in the script panel.
  let report = () => undefined;
  api.EjsTemplate = new Proxy({}, {
    get(target, key) {
      if (typeof key !== "string" || key === "then" || key === "toJSON") return undefined;
      return () => {
        report("refused", `EjsTemplate.${key}`);
        throw new Error(say(`EjsTemplate.${key} 在状态栏里不可用（状态栏不调用服务器；卡的脚本里可以）`,
          `EjsTemplate.${key} is not available in a status bar (bars call no server; a card's scripts can)`));
      };
    },
  });

  // What the frame says before the page answered its hello waits (a little of it).
  const outbox = [];
  function send(message) {
    if (port) port.postMessage(message); else if (outbox.length < 200) outbox.push(message);
  }
  // Writes, when the card's scripts are allowed (bar_writes.js); read-only otherwise.
  const writer = boot.writes === true && typeof window.__pearBarWrites === "function"
    ? window.__pearBarWrites({ state: () => state, send, say, messageNumber }) : null;
  delete window.__pearBarWrites;
  if (writer) {
    for (const name of WRITES) api[name] = writer.functions[name] || api[name];
    Mvu.replaceMvuData = writer.functions["Mvu.replaceMvuData"];
    Mvu.replaceCurrentMvuData = writer.functions["Mvu.replaceCurrentMvuData"];
  }
  const world = window.__pearWorld;
  delete window.__pearWorld;
  const installed = world(api, { send, say, context, refused: boot.refused || {} });
  const flush = installed.flush;
  report = installed.report;
  // What the bar fetches itself (frame_fetch.js, `$('body').load(url)`): through the page, as a remote
  // module's text (the card's allowance).
  const fetches = new Map();  // id → {resolve, reject}
  let nextFetch = 1;
  window.__pearFetch?.({ report, say, ask(url) {
    const id = nextFetch++;
    send({ kind: "fetch", id, url });
    return new Promise((resolve, reject) => fetches.set(id, { resolve, reject }));
  } });

  // -- what could not be loaded: one line at the top of the frame -------------------------------

  const blocked = [];
  let line = null;
  function label(url) {
    try {
      const parsed = new URL(url, "https://unknown.invalid/");
      const file = parsed.pathname.split("/").filter(Boolean).pop() || parsed.hostname;
      return parsed.hostname && parsed.hostname !== "unknown.invalid" ? `${file}（${parsed.hostname}）` : file;
    } catch { return String(url); }
  }
  function showBlocked() {
    if (!blocked.length || !document.body) return;
    if (!line) {
      line = document.createElement("div");
      line.setAttribute("role", "note");
      line.className = "pear-blocked";
      line.style.cssText = "font:12px/1.5 sans-serif;color:#7a4b00;background:#fff4dc;border-radius:4px;"
        + "padding:2px 6px;margin:0 0 4px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis";
    }
    const names = blocked.map(label).join(say("、", ", "));
    line.textContent = say(`⚠ 状态栏未能加载：${names}（这里不从网络加载）`,
      `⚠ The status bar could not load: ${names} (nothing is loaded from the network here)`);
    line.title = blocked.join("\n");
    if (!line.isConnected) document.body.prepend(line);
  }
  function block(url) {
    if (!url || url === "inline" || url === "eval" || blocked.includes(url)) return;
    blocked.push(url);
    showBlocked();
  }
  for (const url of boot.blocked || []) block(url);
  document.addEventListener("securitypolicyviolation", (event) => block(event.blockedURI));
  document.addEventListener("pear-refused", (event) => block(String(event.detail)));  // frame_guard.js

  // -- remote modules the page handed over (status_frame.js): run as real modules from blob: ---------
  // A bar's inline module that imports from the web, or its <script type="module" src>, runs once the
  // document is parsed (as a module script would), its imports made blob: addresses of their text.
  const remote = boot.remote || { items: [], modules: {} };
  const blobs = new Map();
  function blobOf(url, chain = []) {
    if (!blobs.has(url)) {
      const found = remote.modules[url];
      if (!found || chain.includes(url)) return null;
      const deps = found.deps.map((dep) => blobOf(dep, [...chain, url]));
      const code = found.code.replace(/__pear_dep_(\d+)__/g, (mark, n) => deps[Number(n)] || mark);
      blobs.set(url, URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
    }
    return blobs.get(url);
  }
  function runModule(code, deps) {
    const addresses = deps.map((dep) => blobOf(dep));
    const missing = deps.filter((dep, i) => !addresses[i]);
    if (missing.length) { missing.forEach(block); return; }
    const text = code.replace(/__pear_dep_(\d+)__/g, (mark, n) => addresses[Number(n)] || mark);
    const tag = document.createElement("script");
    tag.type = "module";
    tag.src = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    document.head.append(tag);
  }
  function runRemote() {
    for (const holder of document.querySelectorAll("script[data-pear-remote]")) {
      const item = remote.items[Number(holder.dataset.pearRemote)];
      if (item && item.kind === "inline" && holder.type === "text/x-pear-module") runModule(holder.textContent, item.deps);
      else if (item && item.kind === "module") runModule("import '__pear_dep_0__';", [item.url]);
    }
  }
  if (remote.items.length) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", runRemote, { once: true });
    else runRemote();
  }

  // -- the page: its port, the frame's size, its updates ----------------------------------------

  let lastSize = "";
  function reportSize() {
    if (!port || !document.body) return;
    const body = document.body;
    const empty = !body.innerText.trim() && !body.querySelector("img, svg, hr, table, canvas, [style*='background']");
    const height = Math.ceil(Math.max(document.documentElement.getBoundingClientRect().height, body.scrollHeight));
    const size = `${height}:${empty}`;
    if (size === lastSize) return;
    lastSize = size;
    port.postMessage({ kind: "size", height, empty });
  }
  function watchSize() {
    const watch = new ResizeObserver(reportSize);
    watch.observe(document.documentElement);
    if (document.body) watch.observe(document.body);
    reportSize();
  }

  function onPage(message) {
    const data = message.data;
    if (!data || typeof data !== "object") return;
    if (data.kind === "fetched") {
      const waiting = fetches.get(data.id);
      fetches.delete(data.id);
      if (waiting && data.error !== undefined) waiting.reject(new Error(String(data.error)));
      else if (waiting) waiting.resolve(data.found);
    } else if (data.kind === "update") {
      state = data.state;
      (async () => { for (const [type, ...args] of data.events || []) await eventEmit(type, ...args); })();
    } else if (data.kind === "answer" && writer) {
      writer.answer(data);
    }
  }

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source !== realParent || port || !data || data.pear !== "page" || data.kind !== "port" || data.nonce !== nonce) return;
    if (!event.ports || event.ports.length !== 1) return;
    port = event.ports[0];
    port.onmessage = onPage;
    state = data.state;
    connected = true;
    for (const message of outbox.splice(0)) port.postMessage(message);
    flush();
    for (const resolve of waiting.splice(0)) resolve();
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watchSize);
    else watchSize();
    window.addEventListener("load", reportSize);
  });
  document.addEventListener("DOMContentLoaded", showBlocked);
  realParent.postMessage({ pear: "frame", kind: "hello", nonce }, "*");
})();
