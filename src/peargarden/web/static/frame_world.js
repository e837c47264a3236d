// The world a card's frame sees, as TavernHelper's frames have it (our own code): its status bars and
// scripts were written for frames of SillyTavern's own origin, which reach the page through
// `window.parent` / `window.top` and find there (and on their own window) `TavernHelper`, `Mvu`,
// `SillyTavern`, `toastr`, `_`, `$`, `z`, `YAML`, `EjsTemplate`, the tavern and iframe event names and
// the event functions.  Our frames are sandboxed (an opaque origin): the real parent is another
// origin's window and throws on every property.  So this script, run after frame_guard.js and before
// the card's code, puts a host of its own in their place:
//
// * `window.parent` (a replaceable attribute) becomes the host; `top` cannot be replaced (unforgeable),
//   so the server renames the card's `top` to `__pear_top` (scripting/page_source.py), defined here as
//   the host.  `parent !== window` and `top !== self` hold, as in a frame; `parent.parent`, `top.top`
//   and `parent.window` are the host again; `parent.document` is this frame's own document (what a
//   script draws "into the page" is drawn here: the page shows this frame as the script's panel); any
//   other property the host lacks is read from this window;
// * the globals TavernHelper's frames predefine are put on this window and on the host;
// * `TavernHelper.<a function it has and we do not>` is a function that throws one readable line, and
//   every error the card's code lets escape is reported: the page counts both in its script panel.
//
// The bridge that runs after this (frame_bridge.js for a status bar, script_bridge.js for a script)
// calls `__pearWorld(api, hooks)` once with the functions it answers and how to reach the page
// (`hooks.send`); it gets back the host and `report(kind, detail)`, the notes and toasts for the page.
(function () {
  "use strict";
  const realParent = window.parent;
  const ownWindow = window;

  // Names a card reads from TavernHelper that are not its functions.
  const QUIET = new Set(["then", "toJSON", "constructor", "prototype", "length", "name", "valueOf", "toString",
    "_bind", "__esModule", "default"]);

  function install(api, hooks) {
    const refused = hooks.refused || {};  // TavernHelper names refused → why

    // -- notes for the page's script panel: an error or an unknown call counted, sent at most every
    // 250 ms (a frame that throws in a loop sends one line with its count, not a flood); toasts ---
    const notes = new Map();  // "kind:text" → {kind, text, count, sent}
    let flushing = null;
    let toasts = 0;
    function flush() {
      flushing = null;
      for (const note of notes.values()) {
        if (note.count === note.sent) continue;
        note.sent = note.count;
        hooks.send({ kind: "note", note: note.kind, text: note.text, count: note.count });
      }
    }
    function report(kind, detail) {
      if (kind === "toast") {
        toasts += 1;
        if (toasts <= 50) hooks.send({ kind: "toast", ...detail });
        return;
      }
      const key = `${kind}:${detail}`;
      const note = notes.get(key) || (notes.size < 100 ? { kind, text: String(detail), count: 0, sent: 0 } : null);
      if (!note) return;
      note.count += 1;
      notes.set(key, note);
      if (!flushing) flushing = setTimeout(flush, 250);
    }
    const once = report;

    // -- TavernHelper: the functions answered, the refused ones throwing their reason ---------------
    const functions = { ...api };
    for (const [name, reason] of Object.entries(refused)) {
      if (name in functions) continue;
      functions[name] = () => {
        once("refused", name);
        throw new Error(hooks.say(`${name} 不可用：${reason}`, `${name} is not available: ${reason}`));
      };
    }
    const helperTarget = { ...functions };
    const TavernHelper = new Proxy(helperTarget, {
      get(target, key) {
        if (typeof key !== "string" || key in target || QUIET.has(key) || key.startsWith("__")) return target[key];
        return () => {
          once("unknown", `TavernHelper.${key}`);
          throw new Error(hooks.say(`TavernHelper.${key} 在梨园里没有（这个函数还不支持）`,
            `TavernHelper.${key} does not exist in Pear Garden (not supported yet)`));
        };
      },
    });

    // -- toastr: the page's toasts ----------------------------------------------------------------
    const toastr = {};
    for (const type of ["success", "info", "warning", "error"]) {
      toastr[type] = (message, title) => {
        report("toast", { type, title: title === undefined ? "" : String(title), message: String(message ?? "") });
        return undefined;
      };
    }
    toastr.clear = toastr.remove = () => undefined;
    toastr.options = {};

    // -- SillyTavern.getContext(): what scripts read of it, plus eventSource -------------------------
    const eventSource = {
      on: (type, listener) => api.eventOn(type, listener),
      once: (type, listener) => api.eventOnce(type, listener),
      makeLast: (type, listener) => api.eventMakeLast(type, listener),
      makeFirst: (type, listener) => api.eventMakeFirst(type, listener),
      removeListener: (type, listener) => api.eventRemoveListener(type, listener),
      emit: (type, ...args) => api.eventEmit(type, ...args),
    };
    function getContext() {
      const context = hooks.context();
      return {
        ...context, eventSource, eventTypes: api.tavern_events, event_types: api.tavern_events,
        getContext, substituteParams: (text) => (api.substitudeMacros ? api.substitudeMacros(text) : String(text)),
        getRequestHeaders: () => ({}), getCurrentChatId: () => context.chatId, toastr,
      };
    }
    const SillyTavern = new Proxy({}, {
      get(target, key) { return key === "getContext" ? getContext : getContext()[key]; },
      has(target, key) { return key in getContext(); },
      ownKeys() { return Reflect.ownKeys(getContext()); },
      getOwnPropertyDescriptor(target, key) {
        const value = getContext()[key];
        return value === undefined ? undefined : { value, enumerable: true, configurable: true, writable: false };
      },
    });

    // -- the globals, on this window and on the host ----------------------------------------------
    const globals = {
      ...functions, TavernHelper, SillyTavern, toastr, eventSource, event_types: api.tavern_events,
    };
    const lazy = ["_", "$", "jQuery", "z", "YAML", "Mvu", "EjsTemplate"];  // read when asked for
    Object.assign(ownWindow, globals);

    // The host's location: the page is not the frame's to leave (a sandboxed frame may not navigate
    // the top either); this frame's own location stays its own.
    const leave = () => {
      once("refused", "top.location");
      throw new DOMException(hooks.say("卡片的脚本不能让聊天页跳转", "a card's script cannot navigate the chat page"),
        "SecurityError");
    };
    const hostLocation = new Proxy(Object.create(null), {
      get(target, key) {
        if (key === "href" || key === "toString" || key === Symbol.toPrimitive) {
          return key === "href" ? "about:srcdoc" : () => "about:srcdoc";
        }
        if (key === "assign" || key === "replace" || key === "reload") return leave;
        return undefined;
      },
      set: leave,
    });

    const host = new Proxy(Object.create(null), {
      get(target, key) {
        if (key === "parent" || key === "top" || key === "window" || key === "self" || key === "frames") return host;
        if (key === "document") return document;
        if (key === "location") return hostLocation;
        if (key === "postMessage") return (...args) => realParent.postMessage(...args);  // the page refuses them
        if (key in target) return target[key];
        if (typeof key === "string" && (key in globals)) return globals[key];
        if (typeof key === "string" && lazy.includes(key)) return ownWindow[key];
        const value = ownWindow[key];
        // A window's own method called on the host needs this window as `this`; a constructor
        // (capitalised) stays itself, for `instanceof`.
        if (typeof value === "function" && typeof key === "string" && /^[a-z]/.test(key)) return value.bind(ownWindow);
        return value;
      },
      set(target, key, value) {
        if (key === "location") leave();
        target[key] = value;
        return true;
      },
      has(target, key) { return key in target || key in globals || key in ownWindow; },
      deleteProperty(target, key) { delete target[key]; return true; },
    });

    Object.defineProperty(ownWindow, "parent", { value: host, writable: true, configurable: true, enumerable: true });
    Object.defineProperty(ownWindow, "__pear_top", { value: host, writable: true, configurable: true });

    // -- what escapes the card's code: one line each, counted by the page --------------------------
    const firstLine = (value) => String((value && (value.message || value.reason)) || value).split("\n")[0].slice(0, 300);
    ownWindow.addEventListener("error", (event) => {
      if (event.error === undefined && event.message === undefined) return;  // a resource, told elsewhere
      once("error", firstLine(event.error || event.message));
    });
    ownWindow.addEventListener("unhandledrejection", (event) => {
      once("error", firstLine(event.reason));
    });
    return { host, report, flush };
  }

  Object.defineProperty(window, "__pearWorld", { value: install, configurable: true, writable: false });

  // -- localStorage / sessionStorage: an opaque origin has none (reading either throws), and real
  // scripts keep their settings there (房东模拟器's phone, its workshop).  Each frame gets one in
  // memory, for the page's life (not saved), bounded as a browser bounds it (5 million characters).
  const LIMIT = 5_000_000;
  function memoryStorage() {
    const items = new Map();
    let size = 0;
    const methods = {
      getItem: (key) => (items.has(String(key)) ? items.get(String(key)) : null),
      setItem(key, value) {
        const name = String(key);
        const text = String(value);
        const grown = size - (items.has(name) ? name.length + items.get(name).length : 0) + name.length + text.length;
        if (grown > LIMIT) throw new DOMException("the storage is full (5,000,000 characters)", "QuotaExceededError");
        items.set(name, text);
        size = grown;
      },
      removeItem(key) {
        const name = String(key);
        if (items.has(name)) { size -= name.length + items.get(name).length; items.delete(name); }
      },
      clear() { items.clear(); size = 0; },
      key: (index) => [...items.keys()][index] ?? null,
    };
    return new Proxy(methods, {
      get(target, key) {
        if (key === "length") return items.size;
        if (typeof key === "symbol" || key in target) return target[key];
        return items.has(key) ? items.get(key) : undefined;
      },
      set(target, key, value) { if (typeof key === "string") methods.setItem(key, value); return true; },
      has(target, key) { return key in target || items.has(key); },
      deleteProperty(target, key) { methods.removeItem(key); return true; },
      ownKeys() { return [...items.keys()]; },
      getOwnPropertyDescriptor(target, key) {
        return items.has(key) ? { value: items.get(key), enumerable: true, configurable: true, writable: true } : undefined;
      },
    });
  }
  for (const name of ["localStorage", "sessionStorage"]) {
    let usable = false;
    try { usable = Boolean(window[name]); } catch { usable = false; }
    if (!usable) Object.defineProperty(window, name, { value: memoryStorage(), configurable: true, enumerable: true });
  }
})();
