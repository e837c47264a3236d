// Small helpers shared by the pages: JSON API calls and a readable error toast.
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
  if (!response.ok) throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

export function toast(message, isError = false) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = isError ? "error" : "";
  box.hidden = false;
  clearTimeout(box._timer);
  box._timer = setTimeout(() => { box.hidden = true; }, isError ? 8000 : 3000);
}
