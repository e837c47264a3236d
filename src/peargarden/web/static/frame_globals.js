// The globals a card's script frames share (issue 45): what one frame's `initializeGlobal` defines is
// relayed to every other frame of the card and handed to frames started later (frame_apis.js in the
// frames makes its functions async stand-ins); a stand-in's call goes to the frame that defined the
// name, and its answer back to the caller.  Bounded: MAX_NAMES names, MAX_CALLS calls waiting per
// frame; a call to a frame that stopped fails with one line.
import { t } from "./i18n.js";

const MAX_NAMES = 100;
const MAX_CALLS = 300;
const shared = new Map();  // card + name → {owner (the frame's info), name, value (its shape)}
const pending = new Map();  // page call id → {caller, id (the caller's), owner}
let nextId = 1;

// A group page runs several cards' scripts: each card's globals are its own (a script may not reach
// another card's through a stand-in, whose calls would be made as that card).
const cardOf = (info) => info.script.card || "";
const keyOf = (info, name) => `${cardOf(info)}\u0000${name}`;

const answer = (info, id, fields) => info.port?.postMessage({ kind: "global-answer", id, ...fields });

// What *info*'s frame, started later, finds defined: [{name, value}] of its card.
export function sharedGlobals(info) {
  return [...shared.values()].filter((item) => cardOf(item.owner) === cardOf(info))
    .map((item) => ({ name: item.name, value: item.value }));
}

// A frame's message about globals (*data.kind* "global", "global-call" or "global-answer"); *frames*:
// the running frames; *note(info, text)*: one line in the script panel; *tell(info, message)*: to a
// frame, or once it says hello when it is still loading (its boot data may be older).
export function onGlobal(info, data, frames, note, tell) {
  if (data.kind === "global" && typeof data.name === "string") {
    const name = data.name.slice(0, 200);
    if (!shared.has(keyOf(info, name)) && shared.size >= MAX_NAMES) {
      note(info, t(`共享的全局名字太多（最多 ${MAX_NAMES} 个）：${name} 只在定义它的脚本里`,
        `too many shared globals (at most ${MAX_NAMES}): ${name} stays in the script that defined it`));
      return;
    }
    shared.set(keyOf(info, name), { owner: info, name, value: data.value });
    for (const other of frames) {
      if (other !== info && !other.stopped && cardOf(other) === cardOf(info)) tell(other, { kind: "global", name, value: data.value });
    }
  } else if (data.kind === "global-call" && Number.isInteger(data.id)) {
    const found = shared.get(keyOf(info, String(data.name)));
    const waiting = [...pending.values()].filter((call) => call.caller === info).length;
    if (!found || found.owner.stopped || !found.owner.port || !frames.includes(found.owner)) {
      answer(info, data.id, { error: t(`定义 ${data.name} 的脚本已不在运行`, `the script that defined ${data.name} is not running`) });
    } else if (waiting >= MAX_CALLS) {
      answer(info, data.id, { error: t(`调用太多（同时等待的最多 ${MAX_CALLS} 个）`, `too many calls (at most ${MAX_CALLS} waiting)`) });
    } else {
      const id = nextId++;
      pending.set(id, { caller: info, id: data.id, owner: found.owner });
      found.owner.port.postMessage({ kind: "global-call", id, name: String(data.name), path: data.path, args: data.args });
    }
  } else if (data.kind === "global-answer") {
    const call = pending.get(data.id);
    if (!call || call.owner !== info) return;  // only the frame asked may answer
    pending.delete(data.id);
    answer(call.caller, call.id, data.error !== undefined ? { error: String(data.error) } : { value: data.value });
  }
}

// The frames were all taken out (a frozen process): their globals and calls are gone with them.
export function forgetGlobals() {
  for (const call of pending.values()) answer(call.caller, call.id, { error: t("脚本已停止", "the script stopped") });
  pending.clear();
  shared.clear();
}
