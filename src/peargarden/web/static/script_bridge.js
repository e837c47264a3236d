// The bridge inside a card script's frame (script_frames.js puts this file, its data, the libraries and
// the script into the srcdoc of an <iframe sandbox="allow-scripts">).  It gives the script TavernHelper's
// API as its own frame has it (frame_world.js puts it on this window and on the host that stands in for
// `parent` and `top`):
//
// * what TavernHelper answers at once is answered here, from a copy of the chat's data the page hands
//   over (`world`: SillyTavern's chat and metadata, the global variables, what TavernHelper keeps in
//   the card) — the variables of every scope, the messages, the script's name, buttons and data;
// * a write TavernHelper makes at once (replaceVariables, insertOrAssignVariables, deleteVariable, the
//   script's buttons and info) is made on the copy, so the script reads it back at once, and sent to
//   the page, which has the server run it on the chat (app/play/page_scripts.py, the same code as
//   `pear script replay`); the server's copy then replaces this one;
// * what TavernHelper answers with a promise (messages written, generate, triggerSlash, world books) is
//   sent the same way and resolved with the server's answer;
// * tavern events come from the page (after the chat's beats) and from scripts' own eventEmit; each
//   listener is awaited in turn, as SillyTavern's eventSource does.
// The frame has no origin of its own and no network; it talks to the page only through its port.
(function () {
  "use strict";
  const realParent = window.parent;  // before the frame world puts its host in its place
  const holder = document.getElementById("pear-frame-data");
  const boot = JSON.parse(holder.textContent);
  holder.remove();
  const nonce = boot.nonce;
  const script = boot.script;  // {id, name, buttons: [{name, event}]}
  const english = boot.lang === "en";
  const say = (zh, en) => (english ? en : zh);
  let world = boot.world;
  let port = null;
  const outbox = [];  // what was said before the page answered the hello
  const answers = new Map();  // call id → {resolve, reject}
  let report = () => undefined;  // the frame world's (notes and toasts for the page), once installed
  let flush = () => undefined;
  let nextCall = 1;

  const clone = (value) => (value === undefined || value === null ? value : structuredClone(value));
  const plain = (args) => JSON.parse(JSON.stringify(args.map((a) => (a === undefined ? null : a)),
    (key, value) => (value instanceof RegExp ? value.toString() : value)));

  function send(message) {
    if (port) port.postMessage(message); else if (outbox.length < 1000) outbox.push(message);
  }

  // A call the server runs: answered later (a promise), or sent and not waited for (a write this copy
  // has made already).
  function remote(name, args) {
    const id = nextCall++;
    send({ kind: "call", id, name, args: plain(args) });
    return new Promise((resolve, reject) => answers.set(id, { resolve, reject }));
  }
  function written(name, args) {
    remote(name, args).catch((error) => report("error", `${name}: ${error.message}`));
  }

  // -- cyrb53, SillyTavern's getStringHash (the button events' names) ------------------------------
  function stringHash(text, seed = 0) {
    let h1 = 0xdeadbeef ^ seed;
    let h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < text.length; i += 1) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  }

  // -- variables, as TavernHelper keeps them (scripting/variables.py is the same, in Python) --------
  const TYPES = ["chat", "message", "global", "character", "script", "preset", "extension"];

  function option(given) {
    if (given === undefined || given === null) return { type: "chat" };
    if (typeof given !== "object") throw new Error(`变量选项必须是对象，你提供的是: ${given}`);
    if (!TYPES.includes(given.type)) throw new Error(`不支持的变量类型 '${given.type}'，可用: ${TYPES.join(", ")}`);
    return given;
  }
  const chat = () => world.chat || [];
  function messageAt(id, reading) {
    const list = chat();
    const latest = id === undefined || id === null || id === "latest";
    const index = latest ? -1 : Number(id);
    if (!latest && !Number.isInteger(index)) {
      throw new Error(`提供的消息楼层号 '${id}' 超出了范围 [${-list.length}, ${list.length})`);
    }
    if (index < -list.length || index >= list.length) {
      throw new Error(`提供的消息楼层号 '${latest ? "latest" : id}' 超出了范围 [${-list.length}, ${list.length})`);
    }
    if (latest && reading) {
      const visible = list.filter((m) => !m.is_system);
      return visible[visible.length - 1] || {};
    }
    return list[index < 0 ? list.length + index : index];
  }
  const swipeOf = (message) => (Number.isInteger(message.swipe_id) ? message.swipe_id : 0);
  function scriptEntry(id) {
    return ((world.character || {}).scripts || []).find((s) => s.id === id);
  }
  function readScope(given) {
    const opt = option(given);
    switch (opt.type) {
      case "message": {
        const message = messageAt(opt.message_id, true);
        const tables = message.variables;
        const table = Array.isArray(tables) ? tables[swipeOf(message)] : tables && tables[String(swipeOf(message))];
        return table === undefined || table === null ? {} : table;
      }
      case "chat": return (world.chat_metadata || {}).variables || {};
      case "global": return world.globals || {};
      case "character": return (world.character || {}).variables || {};
      case "script": {
        const entry = scriptEntry(opt.script_id || script.id);
        return (entry && entry.data) || {};
      }
      default: return {};
    }
  }
  function writeScope(given, value) {
    const opt = option(given);
    switch (opt.type) {
      case "message": {
        const message = messageAt(opt.message_id, false);
        const count = Array.isArray(message.swipes) ? message.swipes.length : 1;
        if (!Array.isArray(message.variables)) message.variables = Array.from({ length: count }, () => ({}));
        message.variables[swipeOf(message)] = value;
        break;
      }
      case "chat": world.chat_metadata = { ...(world.chat_metadata || {}), variables: value }; break;
      case "global": world.globals = value; break;
      case "character": world.character.variables = value; break;
      case "script": {
        const entry = scriptEntry(opt.script_id || script.id);
        if (entry) entry.data = value;
        break;
      }
      default: throw new Error(say(`网页里的脚本不能写 ${opt.type} 变量`, `scripts in the page cannot write ${opt.type} variables`));
    }
  }
  const keepArrays = (current, incoming) => (Array.isArray(incoming) ? incoming : undefined);
  const getVariables = (given) => clone(readScope(given));
  function replaceVariables(variables, given) {
    writeScope(given, clone(variables));
    written("replaceVariables", [variables, given]);
  }
  function insertOrAssignVariables(variables, given) {
    const result = _.mergeWith(getVariables(given), clone(variables), keepArrays);
    writeScope(given, result);
    written("insertOrAssignVariables", [variables, given]);
    return clone(result);
  }
  function insertVariables(variables, given) {
    const result = _.mergeWith({}, clone(variables), getVariables(given), keepArrays);
    writeScope(given, result);
    written("insertVariables", [variables, given]);
    return clone(result);
  }
  function deleteVariable(path, given) {
    const table = getVariables(given);
    const deleted = _.unset(table, String(path));
    writeScope(given, table);
    written("deleteVariable", [path, given]);
    return { variables: clone(table), delete_occurred: deleted };
  }
  function updateVariablesWith(updater, given = { type: "chat" }) {
    const result = updater(getVariables(given));
    if (result && typeof result.then === "function") return result.then((value) => { replaceVariables(value, given); return value; });
    replaceVariables(result, given);
    return result;
  }
  function getAllVariables() {
    const merged = {};
    for (const type of ["global", "character", "script", "chat"]) Object.assign(merged, readScope({ type }));
    return clone(merged);
  }

  // -- messages (scripting/messages.py) ----------------------------------------------------------
  function roleOf(message) {
    if (message.extra && message.extra.type === "narrator") return message.is_user ? "unknown" : "system";
    return message.is_user ? "user" : "assistant";
  }
  function macros(text) {
    const names = world.names || {};
    return String(text)
      .replace(/\{\{lastMessageId\}\}/gi, String(chat().length - 1))
      .replace(/\{\{user\}\}/gi, names.user || "").replace(/\{\{char\}\}/gi, names.char || "")
      .replace(/\{\{getvar::([^}]*)\}\}/gi, (m, key) => macroValue(_.get(readScope({ type: "chat" }), key)))
      .replace(/\{\{getglobalvar::([^}]*)\}\}/gi, (m, key) => macroValue(_.get(world.globals || {}, key)));
  }
  // A variable as SillyTavern's {{getvar}} prints it: an object as compact JSON, nothing as "".
  const macroValue = (value) => (value === undefined || value === null ? ""
    : typeof value === "object" ? JSON.stringify(value) : String(value));
  function range(text, last) {
    const clamp = (v) => Math.max(0, Math.min(last, v < 0 ? last + v + 1 : v));
    const one = /^(-?\d+)$/.exec(text);
    if (one) return [clamp(Number(one[1])), clamp(Number(one[1]))];
    const two = /^(-?\d+)-(-?\d+)$/.exec(text);
    if (!two) return null;
    return [clamp(Number(two[1])), clamp(Number(two[2]))].sort((a, b) => a - b);
  }
  function view(message, id, withSwipes) {
    const swipeId = message.swipe_id ?? 0;
    const swipes = (message.swipes ?? [message.mes]).map((s) => s ?? "");
    const pad = (values, empty) => swipes.map((s, i) => (Array.isArray(values) && values[i] != null ? values[i] : empty()));
    const swipesData = pad(message.variables ?? [{}], () => ({}));
    const swipesInfo = pad(message.swipe_info ?? [message.extra ?? {}], () => ({}));
    const base = { message_id: id, name: message.name, role: roleOf(message), is_hidden: message.is_system };
    if (withSwipes) return clone({ ...base, swipe_id: swipeId, swipes, swipes_data: swipesData, swipes_info: swipesInfo });
    const index = Number.isInteger(swipeId) && swipeId >= 0 && swipeId < swipes.length ? swipeId : null;
    return clone({ ...base, message: message.mes ?? "", data: index === null ? undefined : swipesData[index],
      extra: index === null ? undefined : swipesInfo[index], swipe_id: swipeId, swipes, swipes_data: swipesData });
  }
  function getChatMessages(rangeText, given) {
    const opts = given || {};
    const list = chat();
    const bounds = range(macros(typeof rangeText === "number" ? String(Math.trunc(rangeText)) : String(rangeText)), list.length - 1);
    if (!bounds) return [];
    const out = [];
    for (let id = bounds[0]; id <= bounds[1] && id < list.length; id += 1) {
      const message = list[id];
      if ((opts.role || "all") !== "all" && roleOf(message) !== opts.role) continue;
      const hide = opts.hide_state || "all";
      if (hide !== "all" && (hide === "hidden") !== Boolean(message.is_system)) continue;
      out.push(view(message, id, Boolean(opts.include_swipes)));
    }
    return out;
  }

  // -- events ------------------------------------------------------------------------------------
  const listeners = new Map();
  const MESSAGE_EVENTS = new Set(["message_swiped", "message_sent", "message_received", "message_edited",
    "message_updated", "user_message_rendered", "character_message_rendered"]);
  const listOf = (type) => { if (!listeners.has(type)) listeners.set(type, []); return listeners.get(type); };
  function listen(type, listener, how) {
    if (typeof listener !== "function") throw new TypeError(`事件 ${type} 的监听器必须是函数`);
    const list = listOf(type);
    if (!list.some((entry) => entry.listener === listener)) {
      const entry = { listener, once: how === "once" };
      if (how === "first") list.unshift(entry); else list.push(entry);
    }
    return { stop: () => eventRemoveListener(type, listener) };
  }
  function eventRemoveListener(type, listener) {
    const list = listeners.get(type);
    if (list) listeners.set(type, list.filter((entry) => entry.listener !== listener));
  }
  async function dispatch(type, args) {
    for (const entry of [...(listeners.get(type) || [])]) {
      let given = args;
      if (MESSAGE_EVENTS.has(type)) {
        const id = parseInt(args[0], 10);
        if (Number.isNaN(id)) continue;
        given = [id, ...args.slice(1)];
      }
      if (entry.once) eventRemoveListener(type, entry.listener);
      try { await entry.listener(...given); } catch (error) { report("error", `${type}: ${(error && error.message) || error}`); }
    }
  }
  // A script's own event: its frame's listeners, then every other frame's (the page passes it on).
  async function eventEmit(type, ...args) {
    send({ kind: "emit", type: String(type), args: plain(args) });
    await dispatch(String(type), args);
  }

  // SillyTavern's event names, as the server names them (scripting/api.py: the command line's scripts get the same).
  const tavern_events = (boot.names || {}).tavern_events || {};
  const iframe_events = (boot.names || {}).iframe_events || {};

  // -- the script's own -----------------------------------------------------------------------------
  const ownEntry = () => scriptEntry(script.id) || {};
  function getScriptButtons() {
    const button = ownEntry().button;
    return clone(button && Array.isArray(button.buttons) ? button.buttons : []);
  }
  function replaceScriptButtons(a, b) {
    const wanted = typeof a === "string" ? b : a;
    const entry = ownEntry();
    entry.button = { ...(entry.button || { enabled: true }), buttons: clone(wanted) };
    written("replaceScriptButtons", [wanted]);
    send({ kind: "buttons", buttons: wanted.filter((x) => x && x.visible).map((x) => String(x.name)) });
  }
  function updateScriptButtonsWith(updater) {
    const result = updater(getScriptButtons());
    if (result && typeof result.then === "function") return result.then((value) => { replaceScriptButtons(value); return value; });
    replaceScriptButtons(result);
    return result;
  }
  const getButtonEvent = (name) => `${script.id}_${stringHash(String(name))}`;

  // -- Mvu, as MVU's script puts it on the page (its variables are kept by the server's MVU) ---------
  const Mvu = {
    events: {
      VARIABLE_INITIALIZED: "mag_variable_initiailized", VARIABLE_UPDATE_STARTED: "mag_variable_update_started",
      COMMAND_PARSED: "mag_command_parsed", VARIABLE_UPDATE_ENDED: "mag_variable_update_ended",
      BEFORE_MESSAGE_UPDATE: "mag_before_message_update",
    },
    getMvuData: (given) => getVariables(given || { type: "message", message_id: "latest" }),
    getCurrentMvuData: () => getVariables({ type: "message", message_id: "latest" }),
    replaceMvuData: async (data, given) => replaceVariables(data, given || { type: "message", message_id: "latest" }),
    getMvuVariable: (data, path, given) => {
      const category = (given && given.category) || "stat";
      return _.get(data && data[`${category}_data`], path, given ? given.default_value : undefined);
    },
    setMvuVariable: async (data, path, value) => { _.set(data.stat_data, path, value); return true; },
    isDuringExtraAnalysis: () => false,
  };

  // -- injected prompts: kept by the server with the chat until its next beats (checked there: text
  // only, bounded).  A prompt's `filter` (a function: it cannot cross) runs here, again each time the
  // chat's data settles (after every beat and call: the variables it reads), and the prompt is among
  // the chat's while it says true (SillyTavern asks it at each generation). ----------------------------
  const filtered = new Map();  // id → {prompt, filter, once, on}
  async function refilter() {
    for (const [id, item] of [...filtered]) {
      let on = false;
      try { on = Boolean(await item.filter()); } catch (error) { report("error", `injectPrompts ${id}: ${(error && error.message) || error}`); }
      if (on === item.on || filtered.get(id) !== item) continue;
      item.on = on;
      if (on && item.once) filtered.delete(id);  // once: the server takes it out after the next beat
      written(on ? "_injectPrompts" : "uninjectPrompts", on ? [[item.prompt], { once: item.once }] : [[id]]);
    }
  }
  let injectedCount = 0;
  function injectPrompts(prompts, options) {
    const once = Boolean(options && options.once);
    const list = Array.isArray(prompts)  // a prompt without an id gets one, as the command line's do
      ? prompts.map((p) => (p && typeof p === "object" && p.id == null ? { ...p, id: `th-inject-${script.id}-${++injectedCount}` } : p))
      : null;
    const ids = (list || []).map((prompt) => String(prompt && prompt.id));
    const now = list ? [] : prompts;  // not a list: the server says what is wrong
    for (const prompt of list || []) {
      const id = String(prompt && prompt.id);
      if (prompt && typeof prompt.filter === "function") {
        const { filter, ...rest } = prompt;
        filtered.set(id, { prompt: rest, filter, once, on: false });
      } else {
        filtered.delete(id);
        now.push(prompt);
      }
    }
    if (!list || now.length) written("_injectPrompts", [now, { once }]);
    refilter();
    let done = false;
    return { uninject: () => { if (!done) { done = true; uninjectPrompts(ids); } } };
  }
  function uninjectPrompts(ids) {
    for (const id of Array.isArray(ids) ? ids : []) filtered.delete(String(id));
    written("uninjectPrompts", [ids]);
  }
  // EjsTemplate, Mvu's other functions and the globals shared with the card's other frames (frame_apis.js).
  const extras = window.__pearFrameApis({
    say, remote, send, report: (kind, detail) => report(kind, detail), read: (given) => getVariables(given),
    count: () => chat().length, dispatch: (type) => dispatch(type, []), once: (type, fn) => listen(type, fn, "once"),
    globals: boot.globals,
  });
  delete window.__pearFrameApis;

  // -- unavailable here, said with one line --------------------------------------------------------
  function unavailable(name, why) {
    return () => {
      report("refused", name);
      throw new Error(say(`${name} 在网页脚本里不可用：${why}`, `${name} is not available to scripts in the page: ${why}`));
    };
  }

  const names = boot.names || { sync: [], async: [] };
  const api = {};
  for (const name of names.async || []) api[name] = (...args) => remote(name, args);
  for (const name of names.sync || []) {
    api[name] = unavailable(name, say("它要在服务器上同步回答，网页里做不到", "it needs a synchronous answer from the server"));
  }
  Object.assign(api, {
    getVariables, replaceVariables, insertOrAssignVariables, insertVariables, deleteVariable, updateVariablesWith,
    getAllVariables, getChatMessages,
    getLastMessageId: () => chat().length - 1,
    substitudeMacros: macros,
    getScriptName: () => script.name, getScriptId: () => script.id, getScriptInfo: () => String(ownEntry().info || ""),
    replaceScriptInfo: (info) => { ownEntry().info = String(info); written("replaceScriptInfo", [info]); },
    getScriptButtons, replaceScriptButtons, updateScriptButtonsWith,
    appendInexistentScriptButtons: (a, b) => {
      const wanted = typeof a === "string" ? b : a;
      return updateScriptButtonsWith((buttons) => [...buttons, ...wanted.filter((w) => !buttons.some((x) => x.name === w.name))]);
    },
    getButtonEvent,
    getIframeName: () => `TH-script--${script.name}--${script.id}`,
    getCurrentMessageId: () => {
      throw new Error(`获取 TH-script--${script.name}--${script.id} 所在楼层 id 时出错: 不要对全局脚本 iframe 调用 getMessageId!`);
    },
    getMessageId: (name) => {
      const match = /^TH-message--(\d+)--\d+(_\d+)?$/.exec(String(name));
      if (!match) throw new Error(`获取 ${name} 所在楼层 id 时出错: 不要对全局脚本 iframe 调用 getMessageId!`);
      return Number(match[1]);
    },
    getCurrentCharacterName: () => (world.names || {}).char || null,
    getCharacterNames: () => [(world.names || {}).char],
    getCurrentCharacterId: () => world.character_id, getCharacterIds: () => [world.character_id],
    getPersonaNames: () => [(world.names || {}).user], getCurrentPersonaName: () => (world.names || {}).user,
    getTavernHelperExtensionId: () => "JS-Slash-Runner", getTavernHelperVersion: () => "4.9.3",
    getFrontendVersion: () => "4.9.3", getTavernVersion: () => "1.18.0",
    stopGenerationById: () => false, stopAllGeneration: () => false,
    setChatMessage: (fields, id, given = {}) => {
      const change = typeof fields === "string" ? { message: fields } : { ...fields };
      return api.setChatMessages([{ ...change, message_id: id }], given);
    },
    updateWorldbookWith: async (book, updater, given) => {
      await api.replaceWorldbook(book, await updater(await api.getWorldbook(book)), given);
      return api.getWorldbook(book);
    },
    // As the QuickJS prelude has them (scripting/prelude.js): over updateWorldbookWith.
    createWorldbookEntries: async (book, entries, given) => {
      let start = 0;
      const worldbook = await api.updateWorldbookWith(book, (data) => { start = data.length; return [...data, ...entries]; }, given);
      return { worldbook, new_entries: worldbook.slice(start) };
    },
    deleteWorldbookEntries: async (book, predicate, given) => {
      let deleted = [];
      const worldbook = await api.updateWorldbookWith(book, (data) => {
        deleted = data.filter((entry) => predicate(entry));
        return data.filter((entry) => !deleted.includes(entry));
      }, given);
      return { worldbook, deleted_entries: deleted };
    },
    // TavernHelper gives the message's shown text in SillyTavern's page (`.mes[mesid] .mes_text`), or an
    // empty selection when it is not shown.  Here the chat is drawn by the page, which no frame reaches:
    // always the empty selection (real cards check `.length`: 房东模拟器's 美化 script threw on the
    // refusal), said once in the script panel.
    retrieveDisplayedMessage: () => {
      report("refused", say("retrieveDisplayedMessage：聊天的消息由梨园的页面显示，脚本的框里没有（给的是空的选择）",
        "retrieveDisplayedMessage: the chat's messages are shown by Pear Garden's page, not in a script's frame (an empty selection)"));
      return window.jQuery ? window.jQuery() : [];
    },
    injectPrompts, uninjectPrompts,
    eventOn: (type, fn) => listen(type, fn, "on"), eventMakeLast: (type, fn) => listen(type, fn, "on"),
    eventMakeFirst: (type, fn) => listen(type, fn, "first"), eventOnce: (type, fn) => listen(type, fn, "once"),
    eventOnButton: (name, fn) => listen(getButtonEvent(name), fn, "on"),
    eventEmit, eventEmitAndWait: (type, ...args) => { eventEmit(type, ...args); },
    eventRemoveListener,
    eventClearEvent: (type) => listeners.delete(type),
    eventClearListener: (fn) => { for (const type of listeners.keys()) eventRemoveListener(type, fn); },
    eventClearAll: () => listeners.clear(),
    errorCatched: (fn) => (...args) => {
      const failed = (error) => { report("error", String((error && error.message) || error)); throw error; };
      try {
        const result = fn(...args);
        return result && typeof result.then === "function" ? result.then(undefined, failed) : result;
      } catch (error) { return failed(error); }
    },
    initializeGlobal: extras.initializeGlobal, waitGlobalInitialized: extras.waitGlobalInitialized,
    EjsTemplate: extras.EjsTemplate,
    builtin_prompt_default_order: ["world_info_before", "persona_description", "char_description", "char_personality",
      "scenario", "world_info_after", "dialogue_examples", "chat_history", "user_input"],
    tavern_events, iframe_events, Mvu: extras.mvu(Mvu),
  });
  delete api._getContext;
  delete api._injectPrompts;

  function context() {
    const names = world.names || {};
    return { chat: clone(chat()), chatMetadata: clone(world.chat_metadata || {}), name1: names.user, name2: names.char,
      characterId: 0, groupId: null, mainApi: "openai", chatId: boot.chat };
  }

  const install = window.__pearWorld;
  delete window.__pearWorld;
  const installed = install(api, { send, say, context, refused: names.refused || {} });
  report = installed.report;
  flush = installed.flush;
  // A message to the page answered by id (a call, a module): resolved with the page's answer.
  function ask(message) {
    const id = nextCall++;
    send({ ...message, id });
    return new Promise((resolve, reject) => answers.set(id, { resolve, reject }));
  }
  // What the frame fetches itself (frame_fetch.js): through the page, as a remote module's text.
  window.__pearFetch?.({ report, say, ask: (url) => ask({ kind: "module", url, module: false }) });
  // Frames a script makes in its frame (nested_frames.js): this frame is their page.
  const nested = window.__pearNested?.({ send, ask,
    boot: () => ({ lang: boot.lang, chat: boot.chat, names: boot.names, script, world }) }) || null;

  // -- modules: what a script imports ---------------------------------------------------------------
  // MVU and StageDog's mvu_zod are kept by the server (its MVU, its zod schema runtime); zod and lodash
  // are this frame's.  Any other module comes from the page (remote_modules.py): from the data folder,
  // or fetched once after the user allowed its host for this card; refused with one line otherwise.
  // It runs as a real module from a blob: address, its own imports loaded the same way first.
  const KNOWN = [
    [/mvu_zod/i, () => ({ registerMvuSchema: () => undefined })],
    [/MagVarUpdate|MagicalAstrogy/i, () => ({})],
    [/(^|\/)zod(@[^/]*)?(\/|$)/i, () => ({ z: window.z, default: window.z, ...window.z })],
    [/(^|\/)lodash(-es)?(@[^/]*)?(\/|$)/i, () => ({ default: window._, ...window._ })],
  ];
  const known = (url) => KNOWN.find(([pattern]) => pattern.test(String(url)));
  function load(url) {
    const found = known(url);
    if (found) return found[1]();
    throw new Error(say(`模块 ${url} 要异步加载（import()）`, `the module ${url} loads asynchronously (import())`));
  }
  const blobs = new Map();  // address → Promise of its blob: address
  function knownBlob(url) {
    // A module importing one the frame has (zod, lodash…): a module that hands the frame's own on.
    const value = known(url)[1]();
    window.__pearKnown = window.__pearKnown || {};
    window.__pearKnown[url] = value;
    // Exported under string names (zod has `null`, `function`…: words a `const` cannot be called).
    const names = Object.keys(value).filter((name) => name !== "default");
    const code = `const m = globalThis.__pearKnown[${JSON.stringify(url)}]; export default m.default;\n`
      + names.map((name, i) => `const e${i} = m[${JSON.stringify(name)}]; export { e${i} as ${JSON.stringify(name)} };`).join("\n");
    return URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  }
  function blobOf(url, chain = []) {
    if (chain.includes(url)) return Promise.reject(new Error(say(`模块互相导入：${[...chain, url].join(" → ")}`, `modules import each other: ${[...chain, url].join(" → ")}`)));
    if (!blobs.has(url)) {
      blobs.set(url, (async () => {
        if (known(url)) return knownBlob(url);
        const id = nextCall++;
        send({ kind: "module", id, url: String(url) });
        const found = await new Promise((resolve, reject) => answers.set(id, { resolve, reject }));
        const deps = [];
        for (const dep of found.deps) deps.push(await blobOf(dep, [...chain, url]));
        const code = found.code.replace(/__pear_dep_(\d+)__/g, (mark, n) => deps[Number(n)] ?? mark);
        return URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
      })());
      blobs.get(url).catch(() => blobs.delete(url));  // a refusal is not kept: an answer may change it
    }
    return blobs.get(url);
  }
  async function importModule(url) {
    const found = known(url);
    if (found) return found[1]();
    try {
      return await import(await blobOf(String(url)));
    } catch (error) {
      const line = say(`没有加载模块 ${url}：${error.message}`, `the module ${url} was not loaded: ${error.message}`);
      report("blocked", line);
      throw new Error(line);
    }
  }
  window.__pear = {
    load,
    run(body) {
      const done = () => send({ kind: "ready" });
      let running;
      try { running = body(); } catch (error) { report("error", String((error && error.message) || error)); done(); return; }
      Promise.resolve(running).then(done, (error) => { report("error", String((error && error.message) || error)); done(); });
    },
  };
  window.__pear_import = importModule;
  // What frame_guard.js took out (a frame in the frame, WebRTC…): one line in the script panel, never silently.
  document.addEventListener("pear-refused", (event) => report("blocked", say(`${event.detail}（脚本框里不允许）`,
    `${event.detail} (not allowed in a script's frame)`)));
  // What the frame's CSP refused from the web (房东模拟器's apps draw icons from api.iconify.design, on
  // every redraw): one line per host and kind, counted, besides the browser's console line.
  const REFUSED_KINDS = { "img-src": ["图片", "pictures"], "font-src": ["字体", "fonts"], "media-src": ["音视频", "media"],
    "style-src-elem": ["样式表", "style sheets"], "style-src": ["样式表", "style sheets"],
    "script-src-elem": ["脚本", "scripts"], "script-src": ["脚本", "scripts"], "connect-src": ["请求", "requests"] };
  document.addEventListener("securitypolicyviolation", (event) => {
    let host = "";
    try { host = new URL(String(event.blockedURI)).host; } catch { return; }  // inline, eval: not the web
    if (!host) return;
    const [zh, en] = REFUSED_KINDS[event.effectiveDirective] || ["内容", "content"];
    report("blocked", say(`${host} 的${zh}（这里不从网络加载）`, `${en} from ${host} (nothing is loaded from the network here)`));
  });

  // -- the page: its port, its answers, its events ---------------------------------------------------
  let lastSize = "";
  function reportSize() {
    if (!port || !document.body) return;
    const body = document.body;
    // Empty: nothing but the frame's own scripts and styles (a script that draws nothing takes no room).
    const empty = ![...body.childNodes].some((node) => (node.nodeType === 1
      ? !["SCRIPT", "STYLE", "TEMPLATE", "LINK", "META"].includes(node.nodeName)
      : node.nodeType === 3 && node.textContent.trim()));
    // What a script draws floating (a phone, a floating ball: position fixed or absolute) takes no
    // room in the flow; the panel grows to its lowest edge, or it would be cut off (a 0 px panel).
    let bottom = 0;
    if (!empty) {
      const all = body.getElementsByTagName("*");
      for (let i = 0; i < Math.min(all.length, 3000); i += 1) {
        const rect = all[i].getBoundingClientRect();
        if (rect.height && rect.bottom > bottom) bottom = rect.bottom;
      }
    }
    const height = Math.ceil(Math.max(document.documentElement.getBoundingClientRect().height, body.scrollHeight,
      bottom + window.scrollY));
    const size = `${height}:${empty}`;
    if (size === lastSize) return;
    lastSize = size;
    port.postMessage({ kind: "size", height, empty });
  }

  function onPage(message) {
    const data = message.data;
    if (!data || typeof data !== "object") return;
    if (String(data.kind).startsWith("global")) { extras.onPage(data); return; }
    if (data.kind === "answer") {
      const waiting = answers.get(data.id);
      answers.delete(data.id);
      if (!waiting) return;
      if (data.error !== undefined) waiting.reject(new Error(data.error));
      else waiting.resolve(data.json === undefined ? undefined : JSON.parse(data.json));
    } else if (data.kind === "world") {
      world = data.world;
      nested?.fromPage(data);
      if (data.settled && filtered.size) refilter();  // not a beat's events' views of the chat
    } else if (data.kind === "settled") {
      if (filtered.size) refilter();
    } else if (data.kind === "event") {
      nested?.fromPage(data);
      // The page waits for this frame's listeners to have started (not for their promises); for a
      // beat's events before its request, to have finished: they hand back the arguments they changed.
      const args = Array.isArray(data.args) ? data.args : [];
      const heard = dispatch(String(data.type), args);
      if (data.wait) heard.then(() => port.postMessage({ kind: "ack", seq: data.seq, args: plain(args) }));
      else port.postMessage({ kind: "ack", seq: data.seq });
    } else if (data.kind === "button") {
      // One of this script's buttons was clicked in the chat bar: its event, here and in every frame.
      eventEmit(getButtonEvent(String(data.name)));
    } else if (data.kind === "ping") {
      port.postMessage({ kind: "pong", seq: data.seq });
    }
  }

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source !== realParent || port || !data || data.pear !== "page" || data.kind !== "port" || data.nonce !== nonce) return;
    if (!event.ports || event.ports.length !== 1) return;
    port = event.ports[0];
    port.onmessage = onPage;
    for (const message of outbox.splice(0)) port.postMessage(message);
    flush();
    const watch = new ResizeObserver(reportSize);
    watch.observe(document.documentElement);
    // Floating parts change without changing the document's size: checked once a frame after a change.
    let pending = false;
    new MutationObserver(() => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; reportSize(); });
    }).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["style", "class", "hidden"] });
    reportSize();
  });
  realParent.postMessage({ pear: "frame", kind: "hello", nonce }, "*");
})();
