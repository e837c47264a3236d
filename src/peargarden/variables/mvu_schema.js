// The page a TavernHelper schema script runs in here (variables/zod_schema.py), and what MVU does
// with the schema it registers.  Own code; the behaviour is MVU + StageDog's mvu_zod as they run in
// SillyTavern (facts kept, see docs/variables.md):
//   - registerMvuSchema(schema | () => schema): a z.object is widened to a loose object (unknown
//     top-level keys kept); several registrations run in the order they were made;
//   - after [initvar] seeding, stat_data = {...stat_data, ...parsed} when it parses, else unchanged;
//   - each update command is applied to a copy of stat_data, the copy is parsed, and only a copy
//     that parses and differs from stat_data is merged back ({...stat_data, ...parsed}, a removed
//     top-level key removed); a copy that does not parse leaves stat_data as it was (a refusal);
//   - paths with a segment starting with "_" are read-only; `delta` adds only to numbers;
//     `move` is a remove then a set.
// Everything a script may touch besides z and _ ($, eventOn, toastr, SillyTavern …) is an inert stub.
// `__pear` is a frozen constant holding the built-ins it needs as they were before any script ran: a
// script may replace JSON.stringify, Promise.prototype.then or __pear's methods for itself, but the
// result handed back and the failure it records stay ours (what Python reads is checked all the same).
"use strict";
const __pear = Object.freeze((function () {
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const then = Promise.prototype.then;
  const apply = Reflect.apply;
  const state = { registrations: [], script: "", warnings: [], notes: [], failed: {} };
  const warn = (text) => state.warnings.push(text);

  const trimQuotes = (s) => String(s).replace(/^[\\"'` ]*(.*?)[\\"'` ]*$/, "$1");
  const parsePath = (s) => trimQuotes(s).replace(/^(?:stat_data|status_current_variables)\./, "");
  const readOnly = (path) => _.toPath(path).some((part) => part.startsWith("_"));

  // YAML read in Python beforehand for the commands' values (the binding cannot call Python while a
  // time limit is set, which every use of the schema has): text → {ok, value | error}.
  const yamlRead = new Map();
  function yamlKnown(table) {
    for (const [text, answer] of Object.entries(table || {})) yamlRead.set(text, answer);
  }
  function yamlParse(source) {
    const text = String(source);
    const answer = yamlRead.has(text) ? yamlRead.get(text) : parse(__yaml_parse(text));
    if (!answer.ok) throw new Error(answer.error);
    return answer.value;
  }
  function commandValue(raw) {
    if (typeof raw !== "string") return raw;
    const trimmed = raw.trim();
    if (trimmed === "true") return true;
    if (trimmed === "false") return false;
    if (trimmed === "null") return null;
    if (trimmed === "undefined") return undefined;
    let value;
    let found = false;
    try {
      value = parse(trimmed);
      found = true;
    } catch (e) {
      const bracketed = (trimmed.startsWith("{") && trimmed.endsWith("}")) || (trimmed.startsWith("[") && trimmed.endsWith("]"));
      if (bracketed) {
        try {
          const literal = new Function(`return ${trimmed};`)();
          if (_.isObject(literal)) {
            value = literal;
            found = true;
          }
        } catch (e2) { /* not a literal: read as YAML below */ }
      }
    }
    if (!found) {
      try {
        value = yamlParse(trimmed);
        found = true;
      } catch (e) {
        // Not YAML either: the trimmed text.  Refused for its aliases (as the yaml package refuses
        // them): the same, and said.
        if (String(e && e.message).includes("alias")) warn(`${trimQuotes(raw).slice(0, 80)}：${e.message}：按原文写入`);
      }
    }
    if (!found) return trimQuotes(raw);
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map((item) => (item instanceof Date ? item.toISOString() : item));
    return value;
  }

  const where = (path) => path.map(String).join(".");
  function explain(error) {
    return [...error.issues]
      .sort((a, b) => (a.path || []).length - (b.path || []).length)
      .map((issue) => {
        const parts = [];
        if (issue.path && issue.path.length) parts.push(`路径 ${where(issue.path)}`);
        if (issue.input !== undefined) parts.push(`输入 ${JSON.stringify(issue.input)}`);
        return `✖ ${issue.message}${parts.length ? `（${parts.join("，")}）` : ""}`;
      })
      .join("；");
  }
  function failure(e) {
    // QuickJS throws null when memory ran out before the error itself could be made.  A thrown value
    // whose name, message or string form throws (a Proxy) is still a failure, said as such.
    if (e === null || (e instanceof Error && e.name === "InternalError" && e.message === "out of memory")) {
      return "内存用完了（out of memory）";
    }
    try {
      const text = e && e.message ? `${e.name || "Error"}: ${e.message}` : String(e);
      return typeof text === "string" ? text : "抛出的值读不出来";
    } catch (inner) {
      return "抛出的值读不出来（a thrown value that cannot be read）";
    }
  }

  function register(input) {
    const unwrap = () => {
      const original = typeof input === "function" ? input() : input;
      return original instanceof z.ZodObject ? z.looseObject(original.shape) : original;
    };
    unwrap();
    state.registrations.push({ unwrap, script: state.script });
  }

  function initialized(variables, swipeId) {
    for (const registration of state.registrations) {
      try {
        const result = registration.unwrap().safeParse(_.get(variables, "stat_data", {}));
        if (result.success) variables.stat_data = { ...variables.stat_data, ...result.data };
        else warn(`「${registration.script}」：第 ${swipeId + 1} 条开场白的变量不符合变量结构，保持原样：${explain(result.error)}`);
      } catch (e) {
        warn(`「${registration.script}」：第 ${swipeId + 1} 条开场白的变量初始化失败：${failure(e)}`);
      }
    }
    return variables;
  }

  function applyCommands(variables, commands) {
    for (const registration of state.registrations) {
      const schema = registration.unwrap();
      const refuse = (command, why) => warn(`${command.full_match}：${why}`);
      let attempted;  // the copy as the command left it, before the schema parsed it
      const checked = (data, command, loud) => {
        attempted = data;
        try {
          const result = schema.safeParse(data);
          if (result.success) return result.data;
          if (loud) refuse(command, `变量结构（「${registration.script}」）拒绝：${explain(result.error)}`);
        } catch (e) {
          if (loud) refuse(command, `变量结构（「${registration.script}」）出错：${failure(e)}`);
        }
        return null;
      };
      const apply = (data, command) => {
        if (command.type === "set") {
          const args = command.args.length === 3 ? [command.args[0], command.args[2]] : command.args;
          const path = parsePath(args[0]);
          if (readOnly(path)) return refuse(command, `只读路径（以 _ 开头），不改`), null;
          if (path) _.set(data, path, commandValue(args[1]));
          else data = commandValue(args[1]);
          return checked(data, command, true);
        }
        if (command.type === "add") {
          const path = parsePath(command.args[0]);
          if (!path || readOnly(path)) return refuse(command, path ? "只读路径（以 _ 开头），不改" : "没有路径"), null;
          const old = _.get(data, path);
          if (typeof old !== "number") return refuse(command, `不能对非数字（${typeof old}）做加减：${path}`), null;
          const delta = commandValue(command.args[1]);
          _.update(data, path, (value) => value + Number(delta));
          return checked(data, command, true);
        }
        if (command.type === "insert") {
          const path = parsePath(command.args[0]);
          if (readOnly(path)) return refuse(command, "只读路径（以 _ 开头），不改"), null;
          const key = commandValue(command.args[1]);
          const value = commandValue(command.args[command.args.length - 1]);
          const put = (target, loud) => {
            const collection = path === "" ? target : _.get(target, path);
            if (command.args.length === 2) {
              if (Array.isArray(collection)) collection.push(value);
              else Object.assign(collection, value);
            } else if (Array.isArray(collection)) {
              collection.splice(key === "-" ? collection.length : key, 0, value);
            } else {
              collection[String(key)] = value;
            }
            return checked(target, command, loud);
          };
          const existing = path === "" ? data : _.get(data, path);
          if (!_.isNil(existing) && !Array.isArray(existing) && !_.isPlainObject(existing)) {
            return refuse(command, `'${path}' 是一个${typeof existing}，不能往里加`), null;
          }
          if (!_.isNil(existing)) return put(data, true);
          const asObject = put(_.set(_.cloneDeep(data), path, {}), false);
          return asObject || put(_.set(_.cloneDeep(data), path, []), true);
        }
        if (command.type === "delete") {
          const pathArray = _.toPath(command.args.map((arg) => parsePath(arg)).join("."));
          if (readOnly(pathArray)) return refuse(command, "只读路径（以 _ 开头），不改"), null;
          const parent = _.get(data, pathArray.slice(0, -1));
          if (Array.isArray(parent)) _.pullAt(parent, Number(pathArray[pathArray.length - 1]));
          else _.unset(data, pathArray);
          return checked(data, command, true);
        }
        return refuse(command, `不认识的命令 ${command.type}`), null;
      };

      const consumed = [];
      commands.forEach((command, index) => {
        attempted = undefined;
        let data = _.cloneDeep(variables.stat_data);
        if (command.type === "move") {
          const from = parsePath(command.args[0]);
          if (!_.has(data, from)) return refuse(command, `移动的来源路径不存在：${from}`);
          const value = _.get(data, from);
          const to = parsePath(command.args[1]);
          data = apply(data, { ...command, type: "delete", args: [from] });
          data = apply(data, { ...command, type: "set", args: [to, value] });
        } else {
          data = apply(data, command);
        }
        const removed = command.type === "delete" ? [_.toPath(command.args.map((arg) => parsePath(arg)).join("."))]
          : command.type === "move" ? [_.toPath(parsePath(command.args[0]))] : [];
        if (data === null) return;
        const lost = removed.some((path) => _.has(variables.stat_data, path) && !_.has(data, path));
        if (!lost && _.isEqual(data, _.pick(variables.stat_data, Object.keys(data)))) {
          // Silent when the command itself changed nothing; said when the schema undid its change.
          const tried = _.isPlainObject(attempted) ? attempted : {};
          if (!_.isEqual(tried, _.pick(variables.stat_data, Object.keys(tried)))) {
            refuse(command, "变量结构把这个改动还原了（路径不在结构里，或值已到取值边界）");
          }
          return;
        }
        for (const path of removed) if (!_.has(data, path)) _.unset(variables.stat_data, path);
        variables.stat_data = { ...variables.stat_data, ...data };
        consumed.push(index);
      });
      _.pullAt(commands, consumed);
    }
    return variables;
  }

  // --- the page around a script ------------------------------------------------------------------
  const inert = new Proxy(function () {}, {
    get: (target, key) => (key === "length" ? 0 : key === Symbol.toPrimitive ? () => "" : key === "then" ? undefined : inert),
    apply: () => inert,
  });
  const modules = [
    [/mvu_zod/i, () => ({ registerMvuSchema: register })],
    [/MagVarUpdate|MagicalAstrogy/i, () => ({})],
    [/(?:^|\/)zod(?:@[^/]*)?(?:\/|$)/i, () => ({ z, default: z, ...z })],
    [/(?:^|\/)lodash(?:-es)?(?:@[^/]*)?(?:\/|$)/i, () => ({ default: _, ..._ })],
  ];
  // Remote modules the card plays from the data folder (a schema imported from a URL): run once, on
  // first import, as the page would; their exports are not read here.
  const defined = new Map();
  function define(url, body) { if (!defined.has(url)) defined.set(url, { body, ran: false }); }
  function load(url) {
    const own = defined.get(String(url));
    if (own) {
      if (!own.ran) {
        own.ran = true;
        const name = state.script;
        apply(then, own.body(), [undefined, (error) => { state.failed[name] = failure(error); }]);
      }
      return {};
    }
    const found = modules.find(([pattern]) => pattern.test(String(url)));
    if (!found) {
      state.notes.push(String(url));
      return {};
    }
    return found[1]();
  }
  // One script: its body (an async function) run, its rejection recorded under its name.
  function run(name, body) {
    state.script = name;
    apply(then, body(), [undefined, (error) => { state.failed[name] = failure(error); }]);
  }
  function input(text) { return parse(text); }
  function result(extra) {
    const out = { warnings: state.warnings, notes: state.notes, failed: state.failed, registered: state.registrations.length, ...extra };
    state.warnings = [];
    return stringify(out);
  }
  return { register, initialized, applyCommands, load, define, run, input, result, inert, commandValue, yamlParse, yamlKnown };
})());

var window = globalThis;
var self = globalThis;
var console = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {}, table() {}, group() {}, groupEnd() {} };
var toastr = { info() {}, success() {}, warning() {}, error() {}, clear() {}, remove() {} };
var $ = function (arg) {
  if (typeof arg === "function") arg();
  return __pear.inert;
};
var jQuery = $;
var YAML = { parse: (s) => __pear.yamlParse(s), stringify: (v) => JSON.stringify(v, null, 2) };
var noop = () => undefined;
var eventOn = noop, eventOnce = noop, eventMakeFirst = noop, eventMakeLast = noop, eventRemoveListener = noop, eventClearAll = noop;
var eventEmit = () => Promise.resolve();
var tavern_events = new Proxy({}, { get: (t, key) => String(key) });
var iframe_events = tavern_events;
var registerVariableSchema = noop, replaceVariables = noop, insertOrAssignVariables = noop, deleteVariable = noop;
var updateVariablesWith = (fn) => fn({});
var getVariables = () => ({});
var getChatMessages = () => [];
var getLastMessageId = () => 0;
var getScriptId = () => "";
var getCurrentMessageId = () => 0;
var reloadOnChatChange = noop, appendInexistentScriptButtons = noop, replaceScriptButtons = noop;
var waitGlobalInitialized = () => Promise.resolve();
var errorCatched = (fn) => (...args) => {
  try {
    return fn(...args);
  } catch (e) {
    return undefined;
  }
};
var setTimeout = (fn, ms, ...args) => (Promise.resolve().then(() => fn(...args)), 0);
var clearTimeout = noop, setInterval = () => 0, clearInterval = noop;
var SillyTavern = { getContext: () => ({ chat: [], characters: [], extensionSettings: {} }), chat: [] };
var Mvu = { events: {}, getMvuData: () => ({ stat_data: {} }), replaceMvuData: () => Promise.resolve(), parseMessage: () => Promise.resolve(undefined) };
