// Pear Garden's TavernHelper runtime for QuickJS (our own code): the world a card's script sees.
//
// Every TavernHelper function is a call over one bridge to the Python implementation
// (scripting/api.py): `__th_call(json)` answers at once for the functions TavernHelper answers at
// once; the others return a promise that the Python side resolves when the script's side is idle.
// Functions TavernHelper builds from a JavaScript callback (updateVariablesWith, eventOn, ...) are
// here.  Tavern events are emitted by the Python side; timers run on a virtual clock it advances.
'use strict';
(function () {
  const G = globalThis;
  const bridge = G.__th_call;
  delete G.__th_call;
  const REGEXP = '__th_regexp';
  const MAX_LOGS = 500;

  const state = {
    ops: [], tickets: new Map(), nextTicket: 1, emitsDone: [], errors: [], logs: [], toasts: [],
    needsPage: [], refused: [], now: 0, timers: [], nextTimer: 1, listeners: new Map(), parent: {},
  };

  const encode = (value) => JSON.stringify(value, (key, x) => (x instanceof RegExp ? { [REGEXP]: [x.source, x.flags] } : x));
  const revive = (key, x) => {
    if (x && typeof x === 'object' && !Array.isArray(x) && Array.isArray(x[REGEXP]) && Object.keys(x).length === 1) {
      try { return new RegExp(x[REGEXP][0], x[REGEXP][1]); } catch (e) { return `/${x[REGEXP][0]}/${x[REGEXP][1]}`; }
    }
    return x;
  };
  const decode = (text) => (text === undefined || text === null ? undefined : JSON.parse(text, revive));
  const message = (error) => String((error && error.message) || error);
  const plain = (args) => JSON.parse(encode(args.map((a) => (a === undefined ? null : a))));

  function callSync(script, name, args) {
    const answer = JSON.parse(bridge(encode({ script, name, args: plain(args) })));
    if (answer.error !== undefined) throw new Error(answer.error);
    return decode(answer.json);
  }

  function callAsync(script, name, args) {
    const ticket = state.nextTicket++;
    state.ops.push({ ticket, script, name, args: plain(args) });
    return new Promise((resolve, reject) => state.tickets.set(ticket, { resolve, reject }));
  }

  function log(script, level, args) {
    if (state.logs.length < MAX_LOGS) {
      state.logs.push({ script, level, text: args.map((a) => (typeof a === 'string' ? a : safeText(a))).join(' ') });
    }
  }
  function safeText(value) {
    try { return value instanceof Error ? String(value.stack || value) : JSON.stringify(value) ?? String(value); }
    catch (e) { return String(value); }
  }
  function fail(script, error, where) {
    state.errors.push({ script, where, message: message(error) });
  }

  // -- events: SillyTavern's eventSource as TavernHelper wraps it ---------------------------------
  const MESSAGE_EVENTS = new Set(['message_swiped', 'message_sent', 'message_received', 'message_edited',
    'message_updated', 'user_message_rendered', 'character_message_rendered']);

  function listenersOf(event) {
    let list = state.listeners.get(event);
    if (!list) state.listeners.set(event, (list = []));
    return list;
  }
  function listen(script, event, listener, how) {
    if (typeof listener !== 'function') throw new TypeError(`事件 ${event} 的监听器必须是函数`);
    const entry = { script, listener, once: how === 'once', removed: false };
    if (how === 'first') listenersOf(event).unshift(entry); else listenersOf(event).push(entry);
    return { stop: () => unlisten(script, event, listener) };
  }
  function unlisten(script, event, listener) {
    const list = state.listeners.get(event) || [];
    for (const entry of list) if (entry.script === script && (listener === undefined || entry.listener === listener)) entry.removed = true;
    state.listeners.set(event, list.filter((entry) => !entry.removed));
  }
  async function emit(event, args) {
    if (event === 'generation_started' && !args[2]) await refilterPrompts();  // not a dry run
    for (const entry of listenersOf(event).slice()) {
      if (entry.removed) continue;
      let given = args;
      if (MESSAGE_EVENTS.has(event)) {
        const id = parseInt(args[0]);
        if (Number.isNaN(id)) continue;
        given = [id, ...args.slice(1)];
      }
      if (entry.once) unlisten(entry.script, event, entry.listener);
      try { await entry.listener(...given); } catch (error) { fail(entry.script, error, `listener of ${event}`); }
    }
  }

  // -- injected prompts with a filter: a function, which cannot cross to the host; asked here when a
  // generation starts, as SillyTavern asks it, and the prompt is the chat's while it says true ------
  const filtered = new Map();  // id → {script, prompt, filter, once, on}
  async function refilterPrompts() {
    for (const [key, item] of [...filtered]) {
      let on = false;
      try { on = Boolean(await item.filter()); } catch (error) { fail(item.script, error, `filter of injected prompt ${key}`); }
      if (on === item.on) continue;
      item.on = on;
      if (on && item.once) filtered.delete(key);  // once: the host takes it out when the generation ends
      if (on) callSync(item.script, '_injectPrompts', [[item.prompt], { once: item.once }]);
      else callSync(item.script, 'uninjectPrompts', [[key]]);
    }
  }
  function injectFiltered(script, prompts, once) {
    const now = [];
    for (const prompt of prompts) {
      if (prompt && typeof prompt.filter === 'function') {
        const { filter, ...rest } = prompt;
        filtered.set(String(prompt.id), { script, prompt: rest, filter, once, on: false });
      } else {
        filtered.delete(String(prompt && prompt.id));
        now.push(prompt);
      }
    }
    return now;
  }

  // -- timers on a virtual clock ----------------------------------------------------------------
  function addTimer(script, fn, delay, args, repeat) {
    if (typeof fn !== 'function') throw new TypeError('setTimeout/setInterval 需要一个函数（不执行字符串代码）');
    const id = state.nextTimer++;
    const wait = Math.max(0, Number(delay) || 0);
    state.timers.push({ id, script, fn, args, due: state.now + wait, seq: id, every: repeat ? Math.max(4, wait) : 0 });
    return id;
  }
  function clearTimer(id) { state.timers = state.timers.filter((t) => t.id !== id); }
  function nextTimer() {
    let best = null;
    for (const t of state.timers) if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    return best;
  }

  // -- the per-script globals -------------------------------------------------------------------
  // SillyTavern's event names, from Python (``api.TAVERN_EVENTS``, ``IFRAME_EVENTS``: the page's frames get the same).
  let tavern_events = {};
  let iframe_events = {};
  const builtin_prompt_default_order = ['world_info_before', 'persona_description', 'char_description',
    'char_personality', 'scenario', 'world_info_after', 'dialogue_examples', 'chat_history', 'user_input'];

  let exported = { sync: [], async: [], refused: {} };

  function scopeFor(id, name) {
    const s = {};
    for (const fn of exported.sync) s[fn] = (...args) => callSync(id, fn, args);
    for (const fn of exported.async) s[fn] = (...args) => callAsync(id, fn, args);
    for (const [fn, reason] of Object.entries(exported.refused)) {
      s[fn] = () => { state.refused.push({ script: id, name: fn }); throw new Error(`${fn} 不可用：${reason}`); };
    }
    const isPromise = (value) => value && typeof value.then === 'function';
    s.updateVariablesWith = (updater, option = { type: 'chat' }) => {
      const result = updater(s.getVariables(option));
      if (isPromise(result)) return result.then((value) => { s.replaceVariables(value, option); return value; });
      s.replaceVariables(result, option);
      return result;
    };
    s.updateWorldbookWith = async (book, updater, options) => {
      await s.replaceWorldbook(book, await updater(await s.getWorldbook(book)), options);
      return s.getWorldbook(book);
    };
    s.createWorldbookEntries = async (book, entries, options) => {
      let start = 0;
      const worldbook = await s.updateWorldbookWith(book, (data) => { start = data.length; return [...data, ...entries]; }, options);
      return { worldbook, new_entries: worldbook.slice(start) };
    };
    s.deleteWorldbookEntries = async (book, predicate, options) => {
      let deleted_entries = [];
      const worldbook = await s.updateWorldbookWith(book, (data) => {
        deleted_entries = data.filter((entry) => predicate(entry));
        return data.filter((entry) => !deleted_entries.includes(entry));
      }, options);
      return { worldbook, deleted_entries };
    };
    s.updateScriptButtonsWith = (updater) => {
      const result = updater(s.getScriptButtons());
      if (isPromise(result)) return result.then((value) => { s.replaceScriptButtons(value); return value; });
      s.replaceScriptButtons(result);
      return result;
    };
    s.appendInexistentScriptButtons = (a, b) => {
      const wanted = typeof a === 'string' ? b : a;
      return s.updateScriptButtonsWith((buttons) => [...buttons, ...wanted.filter((w) => !buttons.some((x) => x.name === w.name))]);
    };
    s.eventOn = (event, listener) => listen(id, event, listener, 'on');
    s.eventMakeLast = (event, listener) => listen(id, event, listener, 'on');
    s.eventMakeFirst = (event, listener) => listen(id, event, listener, 'first');
    s.eventOnce = (event, listener) => listen(id, event, listener, 'once');
    s.eventOnButton = (button, listener) => listen(id, s.getButtonEvent(button), listener, 'on');
    s.eventEmit = async (event, ...args) => { await emit(event, args); };
    s.eventEmitAndWait = (event, ...args) => { emit(event, args); };
    s.eventRemoveListener = (event, listener) => unlisten(id, event, listener);
    s.eventClearEvent = (event) => unlisten(id, event);
    s.eventClearListener = (listener) => { for (const event of state.listeners.keys()) unlisten(id, event, listener); };
    s.eventClearAll = () => { for (const event of state.listeners.keys()) unlisten(id, event); };
    s.errorCatched = (fn) => (...args) => {
      const onError = (error) => { s.toastr.error(message(error), error && error.name); throw error; };
      try {
        const result = fn(...args);
        return isPromise(result) ? result.then(undefined, onError) : result;
      } catch (error) { return onError(error); }
    };
    // TavernHelper puts the value on the page (window.parent), where every frame looks it up.
    s.initializeGlobal = (global, value) => {
      _.set(state.parent, global, value);
      _.set(G, global, value);
      emit(`global_${global}_initialized`, []);
    };
    s.waitGlobalInitialized = (global) => (_.has(state.parent, global) ? Promise.resolve()
      : new Promise((resolve) => listen(id, `global_${global}_initialized`, () => resolve(), 'once')));
    s.setChatMessage = (fields, messageId, options = {}) => {
      const change = typeof fields === 'string' ? { message: fields } : { ...fields };
      return s.setChatMessages([{ ...change, message_id: messageId }], options);
    };
    s.injectPrompts = (prompts, options = {}) => {
      const given = prompts.map((p) => ({ ...p, id: p.id ?? `th-inject-${id}-${state.nextTicket++}` }));
      const now = injectFiltered(id, given, Boolean(options && options.once));
      if (now.length || !given.length) callSync(id, '_injectPrompts', [now, options]);
      const ids = given.map((p) => String(p.id));
      let done = false;
      return { uninject: () => { if (!done) { done = true; s.uninjectPrompts(ids); } } };
    };
    s.uninjectPrompts = (ids) => {
      for (const key of Array.isArray(ids) ? ids : []) filtered.delete(String(key));
      return callSync(id, 'uninjectPrompts', [ids]);
    };
    s.tavern_events = tavern_events;
    s.iframe_events = iframe_events;
    s.builtin_prompt_default_order = builtin_prompt_default_order;
    s.console = Object.fromEntries(['log', 'info', 'warn', 'error', 'debug', 'trace']
      .map((level) => [level, (...args) => log(id, level, args)]));
    s.toastr = Object.fromEntries(['success', 'info', 'warning', 'error']
      .map((kind) => [kind, (text, title) => { state.toasts.push({ script: id, type: kind, title: title === undefined ? '' : String(title), message: String(text) }); }]));
    s.toastr.clear = s.toastr.remove = () => {};
    s.setTimeout = (fn, delay, ...args) => addTimer(id, fn, delay, args, false);
    s.setInterval = (fn, delay, ...args) => addTimer(id, fn, delay, args, true);
    s.clearTimeout = s.clearInterval = clearTimer;
    s.$ = s.jQuery = (what) => {
      if (typeof what === 'function') { Promise.resolve().then(() => what(s.$)).catch((error) => fail(id, error, '$(…)')); return undefined; }
      state.needsPage.push(id);
      throw new Error('jQuery 需要网页：这里没有页面可画（在 pear serve 的聊天页里运行）');
    };
    // A script is an ES module: its imports arrive rewritten (`__pear.load(url)`, `__pear_import(url)`).
    const remote = (url) => new Error(`远程模块 ${url} 在这里不可用（命令行不联网；在 pear serve 的聊天页里运行）`);
    s.__pear = { load: (url) => { throw remote(url); } };
    s.__pear_import = (url) => Promise.reject(remote(url));
    s.TavernHelper = Object.fromEntries(Object.entries(s).filter(([k, v]) => typeof v === 'function' && /^[a-z]/.test(k)));
    s.TavernHelper.tavern_events = tavern_events;
    s.TavernHelper.iframe_events = iframe_events;
    const context = () => ({ ...callSync(id, '_getContext', []), eventTypes: tavern_events, event_types: tavern_events });
    s.SillyTavern = { getContext: context };
    const win = Object.create(s);
    Object.assign(win, { name: `TH-script--${name}--${id}`, frameElement: null, parent: state.parent, top: state.parent });
    win.window = win.self = win;
    return { names: Object.keys(s).concat(['window', 'self', 'parent', 'top']),
      values: { ...s, window: win, self: win, parent: state.parent, top: state.parent } };
  }

  Object.assign(state.parent, { _: G._ });

  G.__th = {
    define(names) {
      exported = names;
      tavern_events = names.tavern_events;
      iframe_events = names.iframe_events;
      Object.assign(state.parent, { tavern_events, iframe_events });
    },
    runScript(id, name, code) {
      const scope = scopeFor(id, name);
      let body;
      try { body = new Function(...scope.names, `return (async () => {\n${code}\n})();`); }
      catch (error) { fail(id, error, 'load'); return; }
      try {
        const running = body(...scope.names.map((n) => scope.values[n]));
        running.catch((error) => fail(id, error, 'run'));
      } catch (error) { fail(id, error, 'run'); }
    },
    hostEmit(emitId, event, argsJson) {
      emit(event, decode(argsJson) || []).then(() => { state.emitsDone.push(emitId); },
        (error) => { fail(null, error, event); state.emitsDone.push(emitId); });
    },
    resolve(ticket, answerJson) {
      const waiting = state.tickets.get(ticket);
      state.tickets.delete(ticket);
      if (!waiting) return;
      const answer = JSON.parse(answerJson);
      if (answer.error !== undefined) waiting.reject(new Error(answer.error)); else waiting.resolve(decode(answer.json));
    },
    tick() {
      const timer = nextTimer();
      if (!timer) return;
      state.now = Math.max(state.now, timer.due);
      if (timer.every) { timer.due = state.now + timer.every; timer.seq = state.nextTimer++; } else clearTimer(timer.id);
      try { timer.fn(...timer.args); } catch (error) { fail(timer.script, error, 'timer'); }
    },
    read(pathJson) { return encode(_.get(state.parent, JSON.parse(pathJson))); },
    report() {
      const timer = nextTimer();
      const out = { ops: state.ops, emitsDone: state.emitsDone, errors: state.errors, logs: state.logs,
        toasts: state.toasts, needsPage: state.needsPage, refused: state.refused, now: state.now,
        nextTimer: timer ? timer.due : null };
      Object.assign(state, { ops: [], emitsDone: [], errors: [], logs: [], toasts: [], needsPage: [], refused: [] });
      return encode(out);
    },
  };
})();
