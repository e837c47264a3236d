// What a card script's frame has besides TavernHelper's own functions (issue 45), run after
// frame_world.js and before script_bridge.js, which calls `__pearFrameApis(hooks)` once:
//
// * `EjsTemplate` — the ST-Prompt-Template extension's exports as TavernHelper's frames find them:
//   `evalTemplate`, `prepareContext`, `getSyntaxErrorInfo` are the server's (the Python EJS over the
//   chat's variables: app/play/page_frame_apis.py), promised as the extension's are; `allVariables` is
//   answered at once from the frame's copy of the chat; `compileTemplate` gives a function that
//   evaluates through the server; `saveVariables` and `refreshWorldInfo` have nothing left to do here
//   (a template's writes are kept at once; world books are read on every beat).  The extension's
//   settings (`getFeatures`, `setFeatures`, `resetFeatures`) are refused with one line: the page does
//   not have them.  Any other name is one line too (as `TavernHelper.<unknown>`).
// * `Mvu`'s functions the bridge lacks: `parseMessage` (the server's MVU, nothing written),
//   `replaceCurrentMvuData`, `getRecordFromMvuData`; `reloadInitVar` is refused with one line.
// * `initializeGlobal` / `waitGlobalInitialized` shared by the card's script frames, as TavernHelper's
//   same-origin frames share the page's window: a value is relayed by the page (script_frames.js,
//   frame_globals.js) to every frame of the card and handed to frames started later.  Data crosses as a
//   copy; a function — a method of an object, a class instance's method — cannot cross an opaque
//   frame, so it arrives as an async stand-in that calls the defining frame through the page and
//   resolves with its answer (data only).  Bounded: 1,000,000 characters of data and 20,000 parts per
//   value, 32 levels; 100 names per page (the page's bound); a stand-in's arguments are copied (a
//   callback argument arrives as `null`).
(function () {
  "use strict";
  const MAX_CHARS = 1_000_000;
  const MAX_PARTS = 20_000;
  const MAX_DEPTH = 32;
  const FN = "__pear_fn__";  // a function's place in a shared value: {[FN]: path}
  const QUIET = new Set(["then", "toJSON", "constructor", "prototype", "length", "name", "valueOf", "toString",
    "__esModule", "default"]);

  function install(hooks) {
    const say = hooks.say;

    // An object whose unknown names are functions that throw one line (and are counted by the page).
    function reported(target, label) {
      return new Proxy(target, {
        get(object, key) {
          if (typeof key !== "string" || key in object || QUIET.has(key) || key.startsWith("__")) return object[key];
          return () => {
            hooks.report("unknown", `${label}.${key}`);
            throw new Error(say(`${label}.${key} 在梨园里没有（还不支持）`, `${label}.${key} does not exist in Pear Garden (not supported yet)`));
          };
        },
      });
    }
    function refused(name, zh, en) {
      return () => {
        hooks.report("refused", name);
        throw new Error(say(`${name} 在网页脚本里不可用：${zh}`, `${name} is not available to scripts in the page: ${en}`));
      };
    }

    // -- EjsTemplate --------------------------------------------------------------------------------
    function allVariables(end) {
      const merged = _.merge({}, hooks.read({ type: "global" }), hooks.read({ type: "chat" }));
      const last = Math.min(hooks.count() - 1, Number.isFinite(Number(end)) && end !== null && end !== undefined ? Number(end) : Infinity);
      for (let id = 0; id <= last; id += 1) _.merge(merged, hooks.read({ type: "message", message_id: id }));
      return merged;
    }
    const evalTemplate = (code, context = null, options = {}) => hooks.remote("EjsTemplate.evalTemplate", [code, context, options]);
    const settings = say("梨园没有提示词模板插件的设置（模板按它的默认设置运行）", "Pear Garden has no settings of the prompt template extension");
    const EjsTemplate = reported({
      evalTemplate,
      evaltemplate: evalTemplate,  // TavernHelper's @types spell it so
      prepareContext: (context = {}, last = 65535) => hooks.remote("EjsTemplate.prepareContext", [context, last]),
      getSyntaxErrorInfo: (code, lines = 4) => hooks.remote("EjsTemplate.getSyntaxErrorInfo", [code, lines]),
      compileTemplate: async (content, options = {}) => (data) => evalTemplate(content, data, options),
      allVariables,
      saveVariables: async () => undefined,
      refreshWorldInfo: async () => undefined,
      getFeatures: refused("EjsTemplate.getFeatures", settings, "the page has no settings of the extension"),
      setFeatures: refused("EjsTemplate.setFeatures", settings, "the page has no settings of the extension"),
      resetFeatures: refused("EjsTemplate.resetFeatures", settings, "the page has no settings of the extension"),
    }, "EjsTemplate");

    // -- Mvu's other functions ----------------------------------------------------------------------
    function mvu(own) {
      own.events.SINGLE_VARIABLE_UPDATED = "mag_variable_updated";
      Object.assign(own, {
        parseMessage: async (message, old) => (await hooks.remote("Mvu.parseMessage", [message, old])) ?? undefined,
        replaceCurrentMvuData: (data) => own.replaceMvuData(data, { type: "message", message_id: "latest" }),
        getRecordFromMvuData: (data, category) => _.get(data, `${category}_data`, {}),
        reloadInitVar: refused("Mvu.reloadInitVar", say("[initvar] 由服务器的 MVU 在开场时读", "the server's MVU reads [initvar] when the chat opens"),
          "the server's MVU reads [initvar] when the chat opens"),
      });
      return reported(own, "Mvu");
    }

    // -- globals shared by the card's frames ----------------------------------------------------------
    const owned = new Map();  // name → the value this frame initialized (its functions are called here)
    const calls = new Map();  // id → {resolve, reject}: this frame's calls of another frame's functions
    let nextCall = 1;

    // *value* as it can cross to another frame: data copied, functions as their path.
    function shape(value, withFunctions) {
      let parts = 0;
      const seen = new Set();
      function walk(item, path) {
        parts += 1;
        if (parts > MAX_PARTS || path.length > MAX_DEPTH) throw new RangeError("too large");
        if (typeof item === "function") return withFunctions ? { [FN]: path } : undefined;
        if (item === null || typeof item !== "object") return typeof item === "symbol" || typeof item === "bigint" ? undefined : item;
        if (item instanceof Date || item instanceof RegExp) return item;
        if (seen.has(item)) return undefined;  // a cycle: not followed
        seen.add(item);
        if (Array.isArray(item)) return item.map((inner, i) => walk(inner, [...path, String(i)]) ?? null);
        const out = {};
        for (const key of Object.keys(item)) {
          const inner = walk(item[key], [...path, key]);
          if (inner !== undefined) out[key] = inner;
        }
        // A class instance's methods (its prototypes', not Object's).
        for (let proto = Object.getPrototypeOf(item); withFunctions && proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
          for (const key of Object.getOwnPropertyNames(proto)) {
            const found = Object.getOwnPropertyDescriptor(proto, key);
            if (key !== "constructor" && !(key in out) && found && typeof found.value === "function") out[key] = { [FN]: [...path, key] };
          }
        }
        seen.delete(item);
        return out;
      }
      const result = walk(value, []);
      if (JSON.stringify(result ?? null).length > MAX_CHARS) throw new RangeError("too large");
      return result;
    }

    // A shape received: data as it is, each function an async stand-in calling the defining frame.
    function standIns(name, item) {
      if (item && typeof item === "object" && !(item instanceof Date) && !(item instanceof RegExp)) {
        if (Array.isArray(item[FN])) {
          const path = item[FN];
          return (...args) => callOwner(name, path, args);
        }
        if (Array.isArray(item)) return item.map((inner) => standIns(name, inner));
        const out = {};
        for (const key of Object.keys(item)) out[key] = standIns(name, item[key]);
        return out;
      }
      return item;
    }

    function callOwner(name, path, args) {
      const id = nextCall++;
      let copied;
      try { copied = shape(args, false); } catch { return Promise.reject(new Error(say("参数太大", "the arguments are too large"))); }
      hooks.send({ kind: "global-call", id, name, path, args: copied });
      return new Promise((resolve, reject) => calls.set(id, { resolve, reject }));
    }

    function announced(name, value) {
      window[name] = value;
      hooks.dispatch(`global_${name}_initialized`);
    }

    function initializeGlobal(name, value) {
      const key = String(name);
      owned.set(key, value);
      announced(key, value);
      let sent;
      try { sent = shape(value, true); } catch {
        hooks.report("refused", say(`initializeGlobal('${key}')：值太大，只在这个脚本里（别的脚本看不到）`,
          `initializeGlobal('${key}'): the value is too large; other scripts do not see it`));
        return;
      }
      hooks.send({ kind: "global", name: key, value: sent });
    }

    function waitGlobalInitialized(name) {
      const key = String(name);
      if (window[key] !== undefined) return Promise.resolve(window[key]);
      return new Promise((resolve) => hooks.once(`global_${key}_initialized`, () => resolve(window[key])));
    }

    // Another frame's global (from the page), or its call of one of ours, or the answer to ours.
    async function onPage(data) {
      if (data.kind === "global" && typeof data.name === "string") {
        owned.delete(data.name);
        announced(data.name, standIns(data.name, data.value));
        return true;
      }
      if (data.kind === "global-answer") {
        const waiting = calls.get(data.id);
        calls.delete(data.id);
        if (waiting && data.error !== undefined) waiting.reject(new Error(String(data.error)));
        else if (waiting) waiting.resolve(data.value);
        return true;
      }
      if (data.kind !== "global-call") return false;
      const answer = (fields) => hooks.send({ kind: "global-answer", id: data.id, ...fields });
      try {
        const path = Array.isArray(data.path) ? data.path.map(String) : [];
        if (!owned.has(data.name)) throw new Error(say(`这个脚本没有定义 ${data.name}`, `this script did not define ${data.name}`));
        let holder = null;
        let target = owned.get(data.name);
        for (const key of path) { holder = target; target = target == null ? undefined : target[key]; }
        if (typeof target !== "function") throw new TypeError(say(`${data.name}.${path.join(".")} 不是函数`, `${data.name}.${path.join(".")} is not a function`));
        const result = await target.apply(holder, Array.isArray(data.args) ? data.args : []);
        answer({ value: shape(result, false) });
      } catch (error) {
        answer({ error: String((error && error.message) || error) });
      }
      return true;
    }

    // Globals the card's other frames defined before this one started.
    for (const item of hooks.globals || []) {
      if (item && typeof item.name === "string") window[item.name] = standIns(item.name, item.value);
    }

    return { EjsTemplate, mvu, initializeGlobal, waitGlobalInitialized, onPage };
  }

  Object.defineProperty(window, "__pearFrameApis", { value: install, configurable: true, writable: false });
})();
