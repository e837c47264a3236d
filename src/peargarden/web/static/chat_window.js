// The chat's messages as a window of the branch: the server sends the last 100 (SillyTavern's
// default), "show more" and scrolling up bring the older ones, and a beat's answer is patched in
// from the first message it changed — rows before it are never drawn again.  At most MAX_DRAWN
// messages stay in the page: reading far back drops the newest ones (and the way back to them says
// so), so a 20,000-message chat draws a few hundred at most.
import { t } from "./i18n.js";
import { loreFold, messageItem, metaText, swipeArrows, toolResult } from "./chat_message.js";

export const PAGE = 100;
const MAX_DRAWN = 200;
// A window is drawn newest first: this many messages at once (a screen and more), the rest of the
// window on the next frame, so a long chat is on the screen as soon as a short one.
const FIRST_DRAWN = 30;
// How far ahead of the reader more messages are asked for: a wheel moves 800 px a notch, and a
// reader scrolling fast passes a few screens a second; with 300 px the loader came into view before
// its page arrived (issue 47).  A page of 100 messages is many screens, so one load covers the rest.
const AHEAD = 3000;

export class MessageWindow {
  // fetchWindow(query) → a chat state for that window; on: the message buttons' handlers;
  // onSwipe(step): the last reply's arrows.
  constructor(list, { fetchWindow, on, onSwipe }) {
    this.list = list;
    this.fetchWindow = fetchWindow;
    this.on = on;
    this.onSwipe = onSwipe;
    this.rows = [];  // the drawn messages (tool results too), oldest first, numbered contiguously
    this.total = 0;
    this.swipe = { position: 0, count: 0, generate: false };
    this.inContext = new Set();
    this.loading = false;
    this.scrolled = false;
    this.older = this.moreItem("more-older", t("显示更早的消息", "Show earlier messages"), () => this.loadOlder());
    this.newer = this.moreItem("more-newer", t("显示之后的消息", "Show later messages"), () => this.loadNewer());
    this.watch();
  }

  get first() { return this.rows.length ? this.rows[0].index : this.total; }
  get end() { return this.rows.length ? this.rows[this.rows.length - 1].index + 1 : this.total; }
  get atEnd() { return this.end >= this.total; }
  message(index) { return this.rows.find((m) => m.index === index); }

  // The window a change should answer with: the same messages (at the end: the end as it will be).
  query() {
    const count = Math.min(MAX_DRAWN, Math.max(PAGE, this.end - this.first));
    return this.atEnd ? { last: count } : { last: count, before: this.end };
  }

  moreItem(cls, label, load) {
    const li = document.createElement("li");
    li.className = `more ${cls}`;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link";
    button.textContent = label;
    button.addEventListener("click", load);
    li.append(button);
    return li;
  }

  scroller() {
    return getComputedStyle(this.list).overflowY === "visible" ? document.scrollingElement : this.list;
  }

  // Scrolling up towards "show earlier" loads them before the reader gets there (once the reader has
  // scrolled: a short window that fits the screen does not pull the whole chat in by itself); down
  // towards "show later", the newer.  After a load the ends are looked at again: an observer says
  // nothing while its target stays near, and a reader still scrolling may need the next page too.
  watch() {
    const mark = () => { this.scrolled = true; };
    this.list.addEventListener("scroll", mark, { passive: true });
    window.addEventListener("scroll", mark, { passive: true });
    this.observe();
    // A phone's page scrolls, a wide screen scrolls the list: the observer's root follows.
    window.addEventListener("resize", () => { if (this.observedIn !== this.scroller()) this.observe(); });
  }

  // The margin applies to the root only: with the list as the scroller its own edge clips what is
  // near, so the list must be the root.
  observe() {
    this.observer?.disconnect();
    this.observedIn = this.scroller();
    this.observer = new IntersectionObserver((seen) => {
      for (const item of seen) {
        if (!item.isIntersecting || !this.scrolled || this.loading) continue;
        if (item.target === this.older) this.loadOlder();
        else if (item.target === this.newer) this.loadNewer();
      }
    }, { root: this.observedIn === this.list ? this.list : null, rootMargin: `${AHEAD}px 0px` });
    this.observer.observe(this.older);
    this.observer.observe(this.newer);
  }

  // Whether an end's "show more" is within AHEAD of what the reader sees.
  near(item) {
    if (item.hidden || !item.isConnected) return false;
    const scroller = this.scroller();
    const view = scroller === this.list ? this.list.getBoundingClientRect() : { top: 0, bottom: window.innerHeight };
    const box = item.getBoundingClientRect();
    return box.bottom > view.top - AHEAD && box.top < view.bottom + AHEAD;
  }

  // After a load: the next page at once when the reader is still near that end.
  again() {
    if (!this.scrolled || this.loading) return;
    if (this.near(this.older)) this.loadOlder();
    else if (this.near(this.newer)) this.loadNewer();
  }

  // -- drawing --------------------------------------------------------------------------------

  // Place a tool result in the timeline of the call that made it (maybe drawn in an earlier item).
  place(message) {
    const call = this.list.querySelector(`li.tool-call[data-call="${CSS.escape(message.tool_call_id || "")}"]`);
    if (call && !call.querySelector(".tool-result")) toolResult(call, message.content, message.is_error);
  }

  items(messages) {
    const out = [];
    for (const message of messages) {
      if (message.role === "tool") continue;
      out.push(messageItem(message, this.on));
    }
    return out;
  }

  placeResults(messages) {
    for (const message of messages) if (message.role === "tool") this.place(message);
  }

  // Everything again (the first draw, a branch switch, an edit): *anchor* keeps that message where
  // it was on the screen; without one the newest message is shown.
  draw(state, anchor = null) {
    const scroller = this.scroller();
    const anchored = anchor != null ? this.list.querySelector(`li.msg[data-index="${anchor}"]`) : null;
    const offset = anchored ? anchored.getBoundingClientRect().top : null;
    this.total = state.total;
    this.rows = state.messages.slice();
    let cut = anchor == null ? Math.max(0, this.rows.length - FIRST_DRAWN) : 0;
    while (cut > 0 && this.rows[cut].role === "tool") cut -= 1;  // a reply with its tool results
    this.waiting = this.rows.slice(0, cut);
    const now = this.rows.slice(cut);
    this.list.replaceChildren(this.older, ...this.items(now), this.newer);
    this.placeResults(now);
    if (cut) requestAnimationFrame(() => setTimeout(() => this.fill()));
    this.update(state);
    const again = anchor != null ? this.list.querySelector(`li.msg[data-index="${anchor}"]`) : null;
    if (again && offset != null) {
      scroller.scrollTop += again.getBoundingClientRect().top - offset;
    } else {
      this.toEnd();
    }
  }

  // The rest of the window, above what the first frame drew (the reader's place kept).
  fill() {
    if (!this.waiting || !this.waiting.length) return;
    const rows = this.waiting;
    this.waiting = [];
    const scroller = this.scroller();
    const height = scroller.scrollHeight;
    this.older.after(...this.items(rows));
    this.placeResults(rows);
    scroller.scrollTop += scroller.scrollHeight - height;
    this.drawContext();
  }

  // The same messages drawn again (the language changed): the one on top of the screen stays there.
  redraw() {
    this.fill();
    const top = this.scroller() === this.list ? this.list.getBoundingClientRect().top : 0;
    const seen = [...this.list.querySelectorAll("li.msg[data-index]")].find((li) => li.getBoundingClientRect().bottom > top);
    const state = { total: this.total, messages: this.rows, swipe: this.swipe, in_context: [...this.inContext] };
    this.draw(state, seen ? Number(seen.dataset.index) : null);
  }

  toEnd() {
    const scroller = this.scroller();
    scroller.scrollTop = scroller.scrollHeight;
  }

  // A beat's answer: the messages from state.first on replace what was drawn from there (and the
  // live reply); nothing before them is touched.
  patch(state) {
    this.fill();
    const from = state.first;
    for (const li of [...this.list.querySelectorAll("li.msg[data-index]")]) {
      if (Number(li.dataset.index) >= from) li.remove();
    }
    const removed = this.rows.filter((m) => m.index >= from);
    this.rows = [...this.rows.filter((m) => m.index < from), ...state.messages];
    this.total = state.total;
    // Before a beat still waiting (its words are on the page already) or the end of the list.
    const waiting = this.list.querySelector("li.pending, li.live") || this.newer;
    waiting.before(...this.items(state.messages));
    this.placeResults(state.messages);
    this.trim("start");
    this.update(state);
    return removed;
  }

  // What the after-beat work may change of messages already drawn: the time taken and the token
  // count (the beat log is written after it), the text shown (MVU appends its status placeholder,
  // which the card's display regex makes a status bar; the stage strips an update block: such a
  // message is drawn again), then as update().
  refresh(state) {
    this.fill();
    for (const message of state.messages) {
      let li = this.list.querySelector(`li.msg[data-id="${CSS.escape(message.id)}"]`);
      const old = this.rows.find((m) => m.id === message.id);
      if (li && old && message.role !== "tool" && (old.content !== message.content || old.display !== message.display)) {
        const again = messageItem(message, this.on);
        li.replaceWith(again);
        li = again;
      }
      const meta = li?.querySelector(".msg-meta");
      if (meta) meta.textContent = metaText(message);
      if (li && message.lore?.length && !li.querySelector(".lore-hits")) {  // known once the beat is logged
        li.querySelector(".msg-actions")?.before(loreFold(message.lore));
      }
      const kept = this.rows.findIndex((m) => m.id === message.id);
      if (kept >= 0) this.rows[kept] = message;
    }
    this.placeResults(state.messages);  // into a reply drawn again
    this.update(state);
  }

  // The swipe arrows, the ends of the window, the in-context marker.
  update(state) {
    this.swipe = state.swipe;
    if (state.in_context) this.inContext = new Set(state.in_context);
    this.older.hidden = this.first <= 0;
    this.older.querySelector("button").textContent = t(`显示更早的消息（还有 ${this.first} 条）`,
      `Show earlier messages (${this.first} more)`);
    this.newer.hidden = this.atEnd;
    this.drawSwipes();
    this.drawContext();
  }

  drawSwipes() {
    for (const old of this.list.querySelectorAll(".msg-actions .swipes")) old.remove();
    if (!this.atEnd || this.swipe.count <= 0) return;
    const replies = this.list.querySelectorAll("li.msg.assistant[data-index]");
    const last = replies[replies.length - 1];
    if (!last) return;
    last.querySelector(".kin")?.remove();  // the arrows say it for the last reply
    last.querySelector(".msg-actions")?.prepend(swipeArrows(this.swipe, this.onSwipe));
  }

  drawContext() {
    let marker = this.list.querySelector("li.context-marker");
    let firstIn = null;
    for (const li of this.list.querySelectorAll("li.msg[data-id]")) {
      const inside = this.inContext.has(li.dataset.id);
      if (li.classList.contains("in-context") !== inside) li.classList.toggle("in-context", inside);
      if (inside && !firstIn) firstIn = li;
    }
    if (!firstIn) { marker?.remove(); return; }
    if (!marker) {
      marker = document.createElement("li");
      marker.className = "context-marker";
      marker.textContent = t("—— 以下在上下文中 ——", "—— in context from here ——");
    }
    if (marker.nextElementSibling !== firstIn) firstIn.before(marker);
  }

  // -- more -----------------------------------------------------------------------------------

  async loadOlder() {
    this.fill();
    if (this.loading || this.first <= 0) return;
    this.loading = true;
    try {
      const state = await this.fetchWindow({ last: PAGE, before: this.first });
      const scroller = this.scroller();
      const height = scroller.scrollHeight;
      const fresh = state.messages.filter((m) => m.index < this.first);
      this.rows = [...fresh, ...this.rows];
      this.total = state.total;
      this.older.after(...this.items(fresh));
      this.placeResults(fresh);
      scroller.scrollTop += scroller.scrollHeight - height;
      this.trim("end");
      this.update({ ...state, swipe: this.swipe, in_context: [...this.inContext] });
    } finally { this.loading = false; }
    requestAnimationFrame(() => this.again());
  }

  async loadNewer() {
    if (this.loading || this.atEnd) return;
    this.loading = true;
    try {
      const state = await this.fetchWindow({ last: PAGE, since: this.end });
      const fresh = state.messages.filter((m) => m.index >= this.end);
      this.placeResults(state.messages.filter((m) => m.index < this.end));
      this.rows = [...this.rows, ...fresh];
      this.total = state.total;
      this.newer.before(...this.items(fresh));
      this.placeResults(fresh);
      this.trim("start");
      this.update(state);
    } finally { this.loading = false; }
    requestAnimationFrame(() => this.again());
  }

  // Back to the end of the chat (before a beat, when the reader had scrolled far back).
  async showEnd() {
    if (this.atEnd) return;
    this.draw(await this.fetchWindow({ last: PAGE }));
  }

  // Keep at most MAX_DRAWN messages: drop from the *side* away from where the reader is going, only
  // messages well off the screen (dropping one near it would bring its "show more" into reach and
  // load it straight back), never between a reply and the tool results that follow it.
  trim(side) {
    let drop = this.rows.length - MAX_DRAWN;
    if (drop <= 0) return;
    const scroller = this.scroller();
    const view = scroller === this.list ? this.list.getBoundingClientRect()
      : { top: 0, bottom: window.innerHeight };
    // Farther than the loads reach (AHEAD): what is dropped is not asked for again at once.
    const margin = Math.max(2 * AHEAD, 2 * (view.bottom - view.top));
    const far = (li) => (side === "end" ? li.getBoundingClientRect().top > view.bottom + margin
      : li.getBoundingClientRect().bottom < view.top - margin);
    const items = [...this.list.querySelectorAll("li.msg[data-index]")];
    const indexes = new Set((side === "end" ? items.reverse() : items).filter(far).map((li) => Number(li.dataset.index)));
    const order = side === "end" ? [...this.rows].reverse() : this.rows;
    let count = 0;
    for (const message of order) {  // the run of far messages from that side
      if (message.role !== "tool" && !indexes.has(message.index)) break;
      count += 1;
    }
    drop = Math.min(drop, count);
    while (drop > 0 && order[drop] && order[drop].role === "tool") drop -= 1;  // keep a reply with its results
    if (drop <= 0) return;
    const height = scroller.scrollHeight;
    const gone = new Set(order.slice(0, drop).map((m) => m.index));
    this.rows = this.rows.filter((m) => !gone.has(m.index));
    for (const li of items) if (gone.has(Number(li.dataset.index))) li.remove();
    if (side === "start") scroller.scrollTop -= height - scroller.scrollHeight;
  }
}
