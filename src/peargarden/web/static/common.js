// Small helpers shared by the pages: JSON API calls and a readable error toast.
import { t } from "./i18n.js";

// Answers the page carried for the GETs its scripts make as they start (web/first_answers.py): each
// stands for the first GET of its path, percent-decoded; later GETs of it go to the server.
let firstAnswers = null;
function firstAnswer(path) {
  if (firstAnswers === null) {
    const carried = document.getElementById("first-answers");
    try { firstAnswers = carried ? JSON.parse(carried.textContent) : {}; } catch { firstAnswers = {}; }
  }
  let key;
  try { key = decodeURIComponent(path); } catch { return undefined; }
  if (!Object.hasOwn(firstAnswers, key)) return undefined;
  const answer = firstAnswers[key];
  delete firstAnswers[key];
  return answer;
}

export async function api(path, options = {}) {
  if ((options.method || "GET") === "GET") {
    const answer = firstAnswer(path);
    if (answer !== undefined) return answer;
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = { error: text }; }
  if (!response.ok) {
    const error = new Error((body && body.error) || `${response.status} ${response.statusText}`);
    error.fix = body && body.fix;  // the setting that fixes it (peargarden.errors.FIXES)
    throw error;
  }
  return body;
}

// Where each fix of an error (peargarden.errors.FIXES) is made on the pages.
const FIXES = {
  model: ["/settings#models", "去设置模型", "Choose the model"],
  connection: ["/settings#connections-panel", "去设置连接", "Fix the connection"],
  embedded: ["/#first-reply", "安装内置模型，或连接一个模型", "Install the built-in model, or connect one"],
};

export function fixLink(fix) {
  const found = FIXES[fix];
  if (!found) return null;
  const link = document.createElement("a");
  link.className = "fix-link";
  link.href = found[0];
  link.textContent = t(found[1], found[2]);
  return link;
}

// *said*: a line, or an error (or a beat's error event) whose ``fix`` names the setting that fixes it:
// then a link to it follows the line, and the toast stays until it is closed.
export function toast(said, isError = false) {
  const box = document.getElementById("toast");
  const message = typeof said === "string" ? said : said.message;
  const link = typeof said === "string" ? null : fixLink(said.fix);
  box.textContent = message;
  box.className = isError ? "error" : "";
  box.hidden = false;
  clearTimeout(box._timer);
  if (link) {
    const close = document.createElement("button");
    close.type = "button";
    close.className = "toast-close";
    close.textContent = "×";
    close.setAttribute("aria-label", t("关闭", "Close"));
    close.addEventListener("click", () => { box.hidden = true; });
    box.append(" ", link, close);
    return;
  }
  box._timer = setTimeout(() => { box.hidden = true; }, isError ? 8000 : 3000);
}
