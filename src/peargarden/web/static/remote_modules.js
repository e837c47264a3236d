// Remote modules for a card's frames (issue 45 item 4): the page asks the server for a module on a
// frame's behalf (POST /api/cards/{card}/modules, app/play/remote_modules.py): from the data folder,
// or fetched once after the user allowed its host for the card.  A host never answered is asked about
// here, once per card and host (every frame waiting for it waits for the one answer), and the answer is
// kept in the card's 卡.json (pear tavern set host.<host> on|off --card is the same from the CLI).
import { api } from "./common.js";
import { t } from "./i18n.js";

const questions = new Map();  // "card\nhost" → Promise<boolean>
const answered = [];  // called with (card, host, allowed) after each answer

// *callback*(card, host, allowed) after the user answered a question (the bars draw again after a yes).
export function onHostAnswered(callback) { answered.push(callback); }

function ask(card, question) {
  const key = `${card}\n${question.host}`;
  if (!questions.has(key)) {
    questions.set(key, new Promise((resolve) => {
      const box = document.createElement("div");
      box.className = "remote-ask notice";
      box.dataset.host = question.host;
      const line = document.createElement("p");
      line.textContent = question.question;
      const yes = document.createElement("button");
      yes.type = "button";
      yes.className = "button remote-yes";
      yes.textContent = t(`允许 ${question.host}`, `Allow ${question.host}`);
      const no = document.createElement("button");
      no.type = "button";
      no.className = "button remote-no";
      no.textContent = t("不允许", "Don't allow");
      const answer = async (allowed) => {
        box.remove();
        try {
          await api(`/api/cards/${encodeURIComponent(card)}/remote-hosts`, {
            method: "POST", headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ host: question.host, allowed }),
          });
        } finally {
          resolve(allowed);
          for (const callback of answered) callback(card, question.host, allowed);
        }
      };
      yes.addEventListener("click", () => answer(true));
      no.addEventListener("click", () => answer(false));
      box.append(line, yes, no);
      const anchor = document.getElementById("warnings");
      if (anchor) anchor.after(box); else document.body.prepend(box);
    }));
  }
  return questions.get(key);
}

// The module at *url* for a frame of *card*: {url, code, deps, type, sha256, fetched}; an Error with
// one line when it is refused or cannot be fetched.  A host never answered is asked about; with *wait*
// the module comes after the answer, without (a status bar, drawn at once) the question stays and this
// fails at once.
export async function cardModule(card, url, module = true, wait = true) {
  // Never the app itself through the server (a relative address in a frame resolves to the page's).
  let target = null;
  try { target = new URL(url); } catch { /* the server says it is not a web address */ }
  if (target && target.origin === window.location.origin) {
    throw new Error(t(`不从梨园自己的地址加载：${url.slice(0, 200)}`, `nothing is loaded from Pear Garden's own address: ${url.slice(0, 200)}`));
  }
  const path = `/api/cards/${encodeURIComponent(card)}/modules`;
  const post = () => api(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ url, module }) });
  let found = await post();
  if (found.ask) {
    const answer = ask(card, found.ask);
    if (!wait) throw new Error(t(`等待回答：是否允许从 ${found.ask.host} 加载`, `waiting for an answer: may it load from ${found.ask.host}?`));
    await answer;
    found = await post();  // the server has the answer now: the module, or the refusal's line
  }
  if (found.ask) throw new Error(t(`没有回答是否允许 ${found.ask.host}`, `no answer for ${found.ask.host}`));
  return found;
}
