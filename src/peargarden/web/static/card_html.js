// Card documents (a whole page, style or script blocks, a status bar a display script made) are
// never put into the page itself: they are shown in an iframe whose sandbox allows no scripts at all
// (card scripts and event handlers cannot run) and whose CSP loads nothing from anywhere.  The frame
// keeps the page's origin only so that the page can read how tall its content is: the frame is sized
// to it (again whenever it reflows), and a document with nothing to show takes no room.
import { t } from "./i18n.js";

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:";
const STYLE = "html,body{margin:0}body{font-family:\"WenQuanYi Micro Hei\",sans-serif;padding:.4rem;"
  + "white-space:pre-wrap;overflow-wrap:anywhere}img,video,table{max-width:100%}";

export function looksLikeHtml(text) { return /<\/?[a-z][^>]*>/i.test(text); }

// A <meta http-equiv="refresh"> would send the frame elsewhere: documents do not get to.
export function inert(html) {
  return html.replace(/<meta\b[^>]*http-equiv[^>]*>/gi, "");
}

// What the CSP refused from the web (a style sheet, a picture, a font: 房东模拟器's update window links
// a web font) is said in one line at the top of the frame, as a status bar's is, never only in the
// browser's console.  A url() inside a style is not looked for.
const REMOTE = "link[href], img[src], image[href], video[src], audio[src], source[src], script[src]";
function sayRefused(doc) {
  const hosts = [];
  for (const element of doc.querySelectorAll(REMOTE)) {
    const address = element.getAttribute("href") || element.getAttribute("src") || "";
    if (!/^(https?:)?\/\//i.test(address.trim())) continue;
    let host = "";
    try { host = new URL(address.trim(), "https://invalid/").host; } catch { continue; }
    if (host && !hosts.includes(host)) hosts.push(host);
  }
  if (!hosts.length || !doc.body || doc.querySelector(".pear-blocked")) return;
  const line = doc.createElement("div");
  line.className = "pear-blocked";
  line.setAttribute("role", "note");
  line.style.cssText = "font:12px/1.5 sans-serif;color:#7a4b00;background:#fff4dc;border-radius:4px;"
    + "padding:2px 6px;margin:0 0 4px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis";
  line.textContent = t(`⚠ 未能加载：${hosts.join("、")}（这里不从网络加载）`,
    `⚠ Not loaded: ${hosts.join(", ")} (nothing is loaded from the network here)`);
  doc.body.prepend(line);
}

function fit(frame) {
  let doc;
  try { doc = frame.contentDocument; } catch { return; }
  if (!doc || !doc.documentElement) return;
  sayRefused(doc);
  const size = () => {
    const body = doc.body;
    const empty = body && !body.innerText.trim() && !body.querySelector("img, svg, hr, table, [style*='background']");
    frame.hidden = Boolean(empty);
    frame.style.height = `${Math.ceil(doc.documentElement.scrollHeight)}px`;
  };
  size();
  if (frame._watch) frame._watch.disconnect();
  frame._watch = new ResizeObserver(size);
  frame._watch.observe(doc.documentElement);
  if (doc.body) frame._watch.observe(doc.body);
}

export function cardFrame(html, className = "card-html") {
  const frame = document.createElement("iframe");
  frame.className = className;
  frame.setAttribute("sandbox", "allow-same-origin");  // and nothing else: no scripts, forms, popups
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("scrolling", "no");
  frame.title = "card HTML";
  frame.style.height = "0";
  frame.addEventListener("load", () => fit(frame));
  frame.srcdoc = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}">`
    + `<style>${STYLE}</style>${inert(html)}`;
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
