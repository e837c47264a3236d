// Card HTML (greetings, status bars made by regex scripts) is never put into the page itself: it is
// shown in an iframe with an empty sandbox (no scripts, no same-origin) and a strict CSP, so card
// scripts and event handlers cannot run and cannot reach the page.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:";

export function looksLikeHtml(text) { return /<\/?[a-z][^>]*>/i.test(text); }

export function cardFrame(html, className = "card-html") {
  const frame = document.createElement("iframe");
  frame.className = className;
  frame.setAttribute("sandbox", "");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("loading", "lazy");
  frame.title = "card HTML";
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}">`
    + `<style>body{font-family:"WenQuanYi Micro Hei",sans-serif;margin:.4rem;white-space:pre-wrap}</style>${html}`;
  return frame;
}

// Plain text keeps its line breaks; text with HTML goes into the sandboxed frame.
export function cardText(text, className) {
  if (looksLikeHtml(text)) return cardFrame(text, className);
  const box = document.createElement("div");
  box.className = "plain";
  box.textContent = text;
  return box;
}
