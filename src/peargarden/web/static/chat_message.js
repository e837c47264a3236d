// One message of the chat page as DOM: its head (avatar, name, time, number, tokens and time taken),
// its text (Markdown the server rendered and sanitised, or card HTML in the sandboxed frame), thinking
// folded, a timeline of tool calls, and its buttons.  Nothing here fetches: the page passes handlers.
import { t } from "./i18n.js";
import { cardFrame, cardText } from "./card_html.js";
import { statusFrame } from "./status_frame.js";

export function thinkingFold(text) {
  const fold = document.createElement("details");
  fold.className = "thinking";
  const summary = document.createElement("summary");
  summary.textContent = t("思考", "Thinking");
  const body = document.createElement("div");
  body.className = "thinking-text";
  body.textContent = text;
  fold.append(summary, body);
  return fold;
}

// Why a small model's guard took streamed text back (a text_retract item's reason).
const RETRACT_REASONS = {
  echo: () => t("复述了你的话", "it repeated your words"),
  claim: () => t("跳出了角色", "it stepped out of character"),
  repeat: () => t("重复了前面说过的话", "it said it before"),
  user: () => t("替你说话了", "it spoke for you"),
  name: () => t("把自己说成了别人", "it took someone else's name"),
};

// The end *taken* of a streaming reply taken back: out of *textEl*, and shown struck through under it
// with the reason, as a swipe would show the other version (the kept reply replaces it all at its end).
export function takeBack(textEl, taken, reason) {
  const shown = textEl.textContent;
  textEl.textContent = shown.endsWith(taken) ? shown.slice(0, shown.length - taken.length)
    : shown.slice(0, Math.max(0, shown.length - taken.length));
  const note = document.createElement("div");
  note.className = "taken-back";
  const gone = document.createElement("s");
  gone.textContent = taken.trim();
  const why = (RETRACT_REASONS[reason] || (() => t("没有通过检查", "a guard rejected it")))();
  note.append(gone, ` ↺ ${t("收回", "taken back")}：${why}`);
  textEl.after(note);
  return note;
}

export function timelineItem(name, args, callId) {
  const item = document.createElement("li");
  item.className = "tool-call";
  item.dataset.call = callId || "";
  const head = document.createElement("div");
  head.className = "tool-head";
  head.textContent = `⚙ ${name} ${args ? JSON.stringify(args) : ""}`;
  item.append(head);
  return item;
}

export function toolResult(item, text, isError) {
  const fold = document.createElement("details");
  fold.className = isError ? "tool-result error" : "tool-result";
  const summary = document.createElement("summary");
  summary.textContent = (isError ? "✗ " : "↳ ") + (text.split("\n")[0] || "").slice(0, 80);
  const body = document.createElement("pre");
  body.textContent = text;
  fold.append(summary, body);
  item.append(fold);
}

function parseArgs(raw) {
  if (raw && typeof raw === "object") return raw;
  try { return JSON.parse(raw); } catch { return raw; }
}

// The full picture over the page (a message shows a small copy of it: ?size=thumb).
function showFull(url, speaker) {
  let dialog = document.getElementById("picture-full");
  if (!dialog) {
    dialog = document.createElement("dialog");
    dialog.id = "picture-full";
    dialog.className = "picture-full";
    dialog.addEventListener("click", () => dialog.close());  // anywhere: the picture is all there is
    dialog.append(document.createElement("img"));
    document.body.append(dialog);
  }
  const img = dialog.querySelector("img");
  img.src = url.split("?")[0];
  img.alt = speaker || "";
  dialog.showModal();
}

// A speaker's picture, small (a click shows it whole); without one, the one placeholder: the first
// character of the name on the accent colour (the server draws the same for a card without one).
export function avatarOf(url, speaker) {
  if (url) {
    const img = document.createElement("img");
    img.className = "avatar";
    img.src = url;
    img.alt = "";
    img.loading = "lazy";
    img.title = t("看大图", "Full picture");
    img.addEventListener("click", () => showFull(url, speaker));
    return img;
  }
  const initial = document.createElement("span");
  initial.className = "avatar initial";
  initial.textContent = [...(speaker || "?")][0];
  return initial;
}

export function formatTime(iso) {
  const when = iso ? new Date(iso) : null;
  if (!when || Number.isNaN(when.getTime())) return "";
  return when.toLocaleString(t("zh-CN", "en-GB"), { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function metaText(message) {
  const parts = [t(`${message.tokens} 词元`, `${message.tokens} tokens`)];
  if (message.gen_seconds != null) {
    parts.push(t(`用时 ${message.gen_seconds.toFixed(1)} 秒`, `${message.gen_seconds.toFixed(1)} s`));
  }
  return parts.join(" · ");
}

// Name, avatar, time and number; token count and generation time in a line shown on hover or by
// the "details" switch (as SillyTavern shows them).
function messageHead(message) {
  const head = document.createElement("div");
  head.className = "msg-head";
  const name = document.createElement("strong");
  name.className = "speaker";
  name.textContent = message.speaker;
  const time = document.createElement("time");
  time.className = "msg-time";
  // No time (an imported send_date nobody can read) shows nothing rather than a wrong one.
  const shown = formatTime(message.time);
  if (shown) time.dateTime = message.time;
  time.textContent = shown;
  const index = document.createElement("span");
  index.className = "msg-index";
  index.textContent = message.index == null ? "" : `#${message.index}`;
  const meta = document.createElement("span");
  meta.className = "msg-meta";
  meta.textContent = message.tokens == null ? "" : metaText(message);
  head.append(avatarOf(message.avatar, message.speaker), name, time, index, meta);
  if (message.index != null) {  // shown while messages are being picked for deletion
    const pick = document.createElement("input");
    pick.type = "checkbox";
    pick.className = "pick";
    pick.value = String(message.index);
    pick.setAttribute("aria-label", t(`选择第 ${message.index} 条`, `select #${message.index}`));
    head.prepend(pick);
  }
  if (message.tags.includes("hidden")) {
    // SillyTavern's hidden message (/hide): kept in the chat, never sent to the model.
    const note = document.createElement("span");
    note.className = "hidden-note";
    note.textContent = t("已隐藏：不发给模型", "hidden: not sent to the model");
    head.append(note);
  }
  return head;
}

// A message whose display holds a card's status bar: Markdown around the bar's frames
// (web/status_frame.py; a document the model wrote stays in the script-less frame).
function partsBody(message) {
  const body = document.createElement("div");
  body.className = "parts";
  for (const part of message.parts) {
    if (part.html != null) {
      const text = document.createElement("div");
      text.className = "md";
      text.innerHTML = part.html;  // sanitised by the server (web/markdown.py)
      body.append(text);
    } else if (part.frame != null) {
      body.append(statusFrame(part, message) || cardFrame(part.frame));
    } else {
      body.append(cardFrame(part.document));
    }
  }
  return body;
}

// A picture of the chat (a picture message's images/<file>), served beside the chat it belongs to.
function pictureOf(image) {
  const page = document.getElementById("chat").dataset;
  const chat = encodeURIComponent(page.chat);
  const base = page.group ? `/api/groups/${encodeURIComponent(page.group)}/chats/${chat}`
    : `/api/chats/${encodeURIComponent(page.card)}/${chat}`;
  const img = document.createElement("img");
  img.className = "msg-picture";
  img.src = `${base}/pictures/${encodeURIComponent(image.replace(/^images\//, ""))}`;
  img.alt = "";
  img.loading = "lazy";
  return img;
}

export function messageBody(message) {
  let body;
  if (message.parts) {
    body = partsBody(message);
  } else if (message.html) {  // Markdown rendered and sanitised by the server (web/markdown.py)
    body = document.createElement("div");
    body.className = "md";
    body.innerHTML = message.html;
  } else {
    body = cardText(message.display || message.content, "card-html");
  }
  body.classList.add("msg-text");
  if (message.image) body.prepend(pictureOf(message.image));
  return body;
}

export function button(label, en, handler, cls) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = `link ${cls}`;
  node.textContent = t(label, en);
  node.addEventListener("click", handler);
  return node;
}

// The buttons under a message.  *on*: {edit, hide, branch, remove, sibling, undo}.
function messageActions(message, on) {
  const bar = document.createElement("div");
  bar.className = "msg-actions";
  const [position, count] = message.sibling || [1, 1];
  if (count > 1 && on.sibling) {
    // A message with other versions (a swipe, an edit) anywhere in the chat: step between them.
    const kin = document.createElement("span");
    kin.className = "kin";
    if (position > 1) kin.append(button("‹", "‹", () => on.sibling(message, -1), "kin-prev"));
    const at = document.createElement("span");
    at.className = "kin-count";
    at.textContent = `${position}/${count}`;
    kin.append(at);
    if (position < count) kin.append(button("›", "›", () => on.sibling(message, 1), "kin-next"));
    bar.append(kin);
  }
  // Its text changed in place (an edit or a continue): undo brings back the text before.
  if (message.undoable && on.undo) bar.append(button("撤销修改", "Undo the change", () => on.undo(message), "undo"));
  bar.append(button("编辑", "Edit", () => on.edit(message), "edit"));
  if (message.role === "user" || message.role === "assistant") {
    const hidden = message.tags.includes("hidden");
    bar.append(button(hidden ? "取消隐藏" : "隐藏", hidden ? "Unhide" : "Hide", () => on.hide(message, !hidden),
      hidden ? "unhide" : "hide"));
  }
  bar.append(button("从这里分支", "Branch here", () => on.branch(message), "branch"));
  bar.append(button("删除", "Delete", () => on.remove(message), "delete"));
  return bar;
}

// SillyTavern's arrows on the last reply: ‹ only where an earlier swipe exists; › to a later one, or
// a new reply (the server says when: never on the chat's first message, whose arrows only cycle the
// alternate greetings it has).
export function swipeArrows({ position, count, generate }, onSwipe) {
  const swipes = document.createElement("span");
  swipes.className = "swipes";
  const arrow = (text, step, cls, label) => {
    const node = document.createElement("button");
    node.type = "button";
    node.className = `swipe ${cls}`;
    node.textContent = text;
    node.setAttribute("aria-label", label);
    node.addEventListener("click", () => onSwipe(step));
    swipes.append(node);
  };
  if (position > 1) arrow("‹", -1, "swipe-prev", t("上一条", "previous swipe"));
  if (count > 1) {
    const shown = document.createElement("span");
    shown.className = "swipe-count";
    shown.textContent = `${position}/${count}`;
    swipes.append(shown);
  }
  if (position < count || generate) arrow("›", 1, "swipe-next", t("下一条", "next swipe"));
  return swipes;
}

// The lorebook entries that fired for a reply, folded under it.
export function loreFold(entries) {
  const fold = document.createElement("details");
  fold.className = "lore-hits";
  const summary = document.createElement("summary");
  summary.textContent = t(`触发的世界书条目（${entries.length}）`, `World info that fired (${entries.length})`);
  const list = document.createElement("ul");
  for (const hit of entries) {
    const item = document.createElement("li");
    item.textContent = hit.book ? `${hit.title} · ${hit.book}` : hit.title;
    list.append(item);
  }
  fold.append(summary, list);
  return fold;
}

// One message as an <li>; tool results are not items of their own: *place* puts each into the
// timeline of the call that made it (found by the page, maybe in an earlier item).
export function messageItem(message, on) {
  const li = document.createElement("li");
  li.className = `msg ${message.role}`;
  if (message.index != null) li.dataset.index = message.index;
  if (message.id) li.dataset.id = message.id;
  if (message.tags.includes("greeting")) li.classList.add("greeting");
  if (message.tags.includes("hidden")) li.classList.add("hidden-msg");
  if (message.image) li.classList.add("picture-msg");
  if (message.beat_step) li.classList.add("beat-step");  // its beat's text is on a later row
  else li.append(messageHead(message));
  if (message.reasoning) li.append(thinkingFold(message.reasoning));
  if (message.content) li.append(messageBody(message));
  // A stage beat's prose is the reply's text; the tool calls that wrote it fold under it.
  if (message.prose) li.append(messageBody({ content: message.prose, html: message.prose_html }));
  // The fork the beat ended at, as the story keeps it (the open one is also a card of buttons).
  if (message.choice) {
    const fork = document.createElement("p");
    fork.className = "msg-fork";
    fork.textContent = `${message.choice.question}（${message.choice.options.join("／")}）`;
    li.append(fork);
  }
  if (message.tool_calls && message.tool_calls.length) {
    const timeline = document.createElement("ol");
    timeline.className = "timeline";
    for (const call of message.tool_calls) timeline.append(timelineItem(call.name, parseArgs(call.arguments), call.id));
    if (message.prose || message.choice || message.beat_step) {
      const fold = document.createElement("details");
      fold.className = "timeline-fold";
      const summary = document.createElement("summary");
      const count = message.tool_calls.length;
      summary.textContent = t(`写作过程（${count} 步）`, `How it was written (${count} steps)`);
      fold.append(summary, timeline);
      li.append(fold);
    } else {
      li.append(timeline);
    }
  }
  if (message.lore && message.lore.length) li.append(loreFold(message.lore));
  if (on) li.append(messageActions(message, on));
  return li;
}

// The page's warnings, each once, as a list under the composer (hidden when there are none).
