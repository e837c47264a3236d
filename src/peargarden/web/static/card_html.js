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
  // The frame cannot report its height (no scripts, no same-origin): guess from the text, the user
  // can still drag it taller.
  const text = html.replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>|<[^>]*>/gi, "");
  const blocks = (html.match(/<(p|div|br|li|tr|h\d|img)\b/gi) || []).length;
  const lines = text.length / 40 + text.split("\n").length + blocks;
  frame.style.height = `${Math.min(28, Math.max(3.5, lines * 1.7 + 1.5))}rem`;
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
