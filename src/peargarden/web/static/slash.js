// STscript from the chat bar: a line starting with "/" runs as SillyTavern's slash commands
// (POST …/slash, a stream that may ask through dialogs and ends with the outcome), with an
// autocomplete of command names and the help of the command being typed.
import { api, toast } from "./common.js";
import { streamPost } from "./stream.js";
import { t } from "./i18n.js";

export function isScript(text) {
  return text.trimStart().startsWith("/");
}

// -- dialogs: /popup, /input, /buttons ---------------------------------------------------------------

function dialog(ask) {
  return new Promise((resolve) => {
    const box = document.createElement("dialog");
    box.className = "slash-dialog";
    const text = document.createElement("p");
    text.className = "slash-dialog-text";
    text.textContent = ask.text || "";
    box.append(text);
    let field = null;
    if (ask.kind === "input") {
      field = document.createElement("textarea");
      field.rows = 2;
      field.value = ask.default || "";
      field.setAttribute("aria-label", t("回答", "Answer"));
      box.append(field);
    }
    const row = document.createElement("div");
    row.className = "slash-dialog-buttons";
    const finish = (value) => { box.close(); box.remove(); resolve(value); };
    if (ask.kind === "buttons") {
      for (const label of ask.labels || []) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = label;
        button.addEventListener("click", () => finish(label));
        row.append(button);
      }
    } else {
      const ok = document.createElement("button");
      ok.type = "button";
      ok.textContent = t("确定", "OK");
      ok.addEventListener("click", () => finish(ask.kind === "input" ? field.value : true));
      row.append(ok);
    }
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "secondary";
    cancel.textContent = ask.kind === "popup" ? t("关闭", "Close") : t("取消", "Cancel");
    cancel.addEventListener("click", () => finish(null));
    row.append(cancel);
    box.append(row);
    box.addEventListener("cancel", (event) => { event.preventDefault(); finish(null); });
    document.body.append(box);
    box.showModal();
    (field || row.querySelector("button")).focus();
  });
}

// -- running ------------------------------------------------------------------------------------------

function showToasts(toasts) {
  for (const item of toasts || []) {
    const head = item.title ? `${item.title}: ` : "";
    toast(head + item.message, item.type === "error" || item.type === "warning");
  }
}

// Runs *script* on the chat at *base*; *composer* is the chat bar (a script may write into it).
export async function runScript(base, script, composer) {
  let outcome = null;
  await streamPost(`${base}/slash`, { script, input: composer ? composer.value : "" }, async (item) => {
    if (item.type === "ask") {
      const answer = await dialog(item);
      await api(`/api/slash/asks/${encodeURIComponent(item.id)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ answer }),
      });
    } else if (item.type === "done") {
      outcome = item;
    }
  });
  if (!outcome) return null;
  showToasts(outcome.toasts);
  if (composer && outcome.input !== null && outcome.input !== undefined) {
    composer.value = outcome.input;
    composer.dispatchEvent(new Event("input", { bubbles: true }));
  }
  if (outcome.changed) document.dispatchEvent(new CustomEvent("pear-chat-changed"));
  // Counted on <body> as beats are: a reader (or a test) can tell a script has finished.
  document.body.dataset.scripts = String(Number(document.body.dataset.scripts || 0) + 1);
  return outcome;
}

// -- autocomplete and help ------------------------------------------------------------------------------

// One request for the command list, shared by every keystroke that arrives before it answers.
let catalog = null;
function commands() {
  if (catalog === null) catalog = api("/api/slash/commands").catch((error) => { catalog = null; throw error; });
  return catalog;
}

function argText(arg) {
  const value = arg.choices && arg.choices.length ? arg.choices.join("|") : (arg.types || []).join("|");
  return `${arg.name}=${value}${arg.required ? "" : "?"}`;
}

// The command word under the caret: the name after the last "/" that begins a command.
function wordAt(text, caret) {
  const before = text.slice(0, caret);
  const match = /(^|[|\s{:])\/([\w:#*-]*)$/.exec(before);
  return match ? { name: match[2], start: caret - match[2].length } : null;
}

export function attachAutocomplete(composer, list) {
  let shown = [];
  let active = -1;
  const hide = () => { list.hidden = true; shown = []; active = -1; };

  const choose = (command) => {
    const found = wordAt(composer.value, composer.selectionStart);
    if (!found) return hide();
    const before = composer.value.slice(0, found.start);
    const after = composer.value.slice(composer.selectionStart);
    composer.value = `${before}${command.name} ${after}`;
    const caret = before.length + command.name.length + 1;
    composer.setSelectionRange(caret, caret);
    composer.focus();
    hide();
  };

  let drawing = 0;  // the latest keystroke's draw: an older one that answers late draws nothing
  const draw = async () => {
    const mine = ++drawing;
    if (!isScript(composer.value)) return hide();
    const found = wordAt(composer.value, composer.selectionStart);
    if (!found) return hide();
    const all = await commands();
    if (mine !== drawing) return;
    const name = found.name.toLowerCase();
    shown = all.filter((c) => [c.name, ...c.aliases].some((n) => n.toLowerCase().startsWith(name))).slice(0, 12);
    const exact = all.find((c) => c.name === found.name || c.aliases.includes(found.name));
    if (exact && !shown.includes(exact)) shown.unshift(exact);
    list.replaceChildren();
    shown.forEach((command, index) => {
      const item = document.createElement("li");
      item.setAttribute("role", "option");
      item.className = index === active ? "active" : "";
      const head = document.createElement("code");
      head.textContent = `/${command.name}` + (command.aliases.length ? ` (${command.aliases.map((a) => "/" + a).join(", ")})` : "");
      const help = document.createElement("span");
      help.textContent = command.help;
      item.append(head, " ", help);
      if (command === exact) {
        const args = document.createElement("small");
        args.className = "slash-args";
        args.textContent = [...command.named.map(argText), ...command.unnamed.map((a) => `(${a.name})`)].join("  ");
        item.append(args);
      }
      item.addEventListener("mousedown", (event) => { event.preventDefault(); choose(command); });
      list.append(item);
    });
    list.hidden = shown.length === 0;
  };

  composer.addEventListener("input", () => { active = -1; draw().catch(() => hide()); });
  composer.addEventListener("blur", () => setTimeout(hide, 100));
  composer.addEventListener("keydown", (event) => {
    if (list.hidden || !shown.length) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      event.stopPropagation();
      active = (active + (event.key === "ArrowDown" ? 1 : shown.length - 1)) % shown.length;
      list.querySelectorAll("li").forEach((li, index) => { li.className = index === active ? "active" : ""; });
    } else if (event.key === "Tab" || (event.key === "Enter" && active >= 0)) {
      event.preventDefault();
      event.stopImmediatePropagation();
      choose(shown[Math.max(active, 0)]);
    } else if (event.key === "Escape") {
      event.stopPropagation();
      hide();
    }
  }, true);
}
