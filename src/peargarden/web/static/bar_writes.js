// Writes from a status bar's frame (issue 45): in TavernHelper a message's frame has the whole API, and
// template bars write (kai's Vue bar puts its schema-parsed variables back with updateVariablesWith).
// When the card's scripts are allowed, status_frame.js loads this before the bar's bridge
// (frame_bridge.js), which asks it for the functions that change the chat: variable writes change
// the bar's copy at once (read back at once, as TavernHelper's) and go to the page as calls; the
// promised ones (setChatMessages, triggerSlash, generate…) resolve with the page's answer.  The page
// sends them as a script frame's calls (POST …/scripts/call, the same checks; the bar named in lines).
// When they are not allowed, this file is not loaded and every write throws (frame_bridge.js).
window.__pearBarWrites = function barWrites(hooks) {
  "use strict";
  const { state, send, say, messageNumber } = hooks;
  const clone = (value) => (value === undefined || value === null ? value : structuredClone(value));
  const keepArrays = (current, incoming) => (Array.isArray(incoming) ? incoming : undefined);
  let seq = 0;
  const waiting = new Map();  // call id → {resolve, reject}

  function call(name, args) {
    seq += 1;
    const id = seq;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      send({ kind: "call", id, name, args: clone(args) });
    });
  }
  // A write made at once whose answer nobody awaits: a refusal is a line of the page's script panel.
  function quietly(promise, name) {
    promise.catch((error) => send({ kind: "note", note: "error", text: `${name}：${error.message}` }));
  }
  function answer(data) {
    const found = waiting.get(data.id);
    if (!found) return;
    waiting.delete(data.id);
    if (typeof data.error === "string") found.reject(new Error(data.error));
    else found.resolve(typeof data.json === "string" ? JSON.parse(data.json) : undefined);
  }

  // The scopes a bar's copy holds: a message's variables (its number made absolute now: the chat may
  // grow before the call is run) and the chat's.
  function where(option) {
    const type = (option && option.type) || "chat";
    if (type === "message") return { type, message_id: messageNumber(option.message_id) };
    if (type === "chat") return { type };
    throw new Error(say(`状态栏只能改动楼层和聊天的变量（不能改 ${type} 变量）`,
      `a status bar writes message and chat variables only (not ${type})`));
  }
  function read(scope) {
    const now = state();
    const found = scope.type === "message" ? now.records[String(scope.message_id)] : now.chat;
    return clone(found && typeof found === "object" ? found : {});
  }
  function keep(scope, value, name, args) {
    const now = state();
    if (scope.type === "message") now.records[String(scope.message_id)] = clone(value);
    else now.chat = clone(value);
    quietly(call(name, [...args, scope]), name);
  }

  function replaceVariables(variables, option) {
    const scope = where(option);
    keep(scope, variables, "replaceVariables", [variables]);
  }
  function updateVariablesWith(updater, option = { type: "chat" }) {
    const scope = where(option);
    const result = updater(read(scope));
    if (result && typeof result.then === "function") {
      return result.then((value) => { keep(scope, value, "replaceVariables", [value]); return value; });
    }
    keep(scope, result, "replaceVariables", [result]);
    return result;
  }
  function insertOrAssignVariables(variables, option) {
    const scope = where(option);
    const result = _.mergeWith(read(scope), clone(variables), keepArrays);
    keep(scope, result, "insertOrAssignVariables", [variables]);
    return clone(result);
  }
  function insertVariables(variables, option) {
    const scope = where(option);
    const result = _.mergeWith({}, clone(variables), read(scope), keepArrays);
    keep(scope, result, "insertVariables", [variables]);
    return clone(result);
  }
  function deleteVariable(path, option) {
    const scope = where(option);
    const table = read(scope);
    const deleted = _.unset(table, String(path));
    keep(scope, table, "deleteVariable", [path]);
    return { variables: clone(table), delete_occurred: deleted };
  }
  const promised = (name) => (...args) => call(name, args);

  const functions = {
    replaceVariables, updateVariablesWith, insertOrAssignVariables, insertVariables, deleteVariable,
    // (MVU's are async: a promise, resolved once the copy holds them)
    "Mvu.replaceMvuData": async (data, option) => replaceVariables(data, option),
    "Mvu.replaceCurrentMvuData": async (data) => replaceVariables(data, { type: "message", message_id: state().message_id }),
  };
  for (const name of ["setChatMessages", "setChatMessage", "createChatMessages", "deleteChatMessages",
    "rotateChatMessages", "triggerSlash", "generate", "generateRaw"]) functions[name] = promised(name);
  return { functions, answer };
};
