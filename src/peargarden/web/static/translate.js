// Translation on the chat page (SillyTavern's translate extension): a message translated on a click,
// or every reply / every input on its own; the translation shown in place of the text, the original
// one click away.  What the model reads stays as it was: a reply keeps its text, an input is sent in
// the model's language and the words typed are kept beside it (web/api_translate.py).
import { api } from "./common.js";
import { t } from "./i18n.js";
import { button } from "./chat_message.js";

const linkButton = (zh, en, cls, handler) => button(zh, en, handler, cls);

export class Translation {
  constructor(context, settings, records) {
    this.name = "translate";
    this.context = context;
    this.settings = settings;
    this.on = Boolean(settings.backend);
    this.records = records;  // message id → {text, html, lang, kind}
    this.typed = null;  // the words of an input being sent translated
    this.passing = false;
  }

  get auto() { return this.on ? this.settings.auto : "none"; }

  async start() {
    if (this.on && (this.auto === "inputs" || this.auto === "both")) {
      document.addEventListener("click", (event) => this.intercept(event), true);
    }
  }

  panel(box) {
    if (!this.on) { this.context.offNote(box, "翻译：未开启。", "Translation: off."); return; }
    const auto = { none: t("手动", "by click"), replies: t("自动译回复", "replies"), inputs: t("自动译输入", "inputs"),
      both: t("自动译回复和输入", "replies and inputs") }[this.auto];
    const line = document.createElement("p");
    line.className = "extras-status";
    line.textContent = t(`翻译：${this.settings.backend}，译成 ${this.settings.language}（${auto}）`,
      `Translation: ${this.settings.backend} into ${this.settings.language} (${auto})`);
    box.append(line);
  }

  decorate(li, bar) {
    if (!this.on) return;
    if (!bar.querySelector(".translate")) {
      bar.append(linkButton("翻译", "Translate", "translate", () => this.translateOne(li).catch((e) => this.context.toast(e.message, true))));
    }
    const record = this.records[li.dataset.id];
    if (record) this.show(li, bar, record);
  }

  // The translation in place of the text; the button beside it swaps back and forth.
  show(li, bar, record) {
    const original = li.querySelector(":scope > .msg-text:not(.translated)");
    if (!original) return;
    li.querySelector(":scope > .msg-text.translated")?.remove();
    const shown = document.createElement("div");
    shown.className = "msg-text translated md";
    shown.lang = record.lang;
    if (record.html != null) shown.innerHTML = record.html;  // sanitised by the server (web/markdown.py)
    else shown.textContent = record.text;
    original.after(shown);
    original.hidden = true;
    let toggle = bar.querySelector(".show-original");
    if (!toggle) {
      toggle = linkButton("原文", "Original", "show-original", () => {
        const showing = !original.hidden;
        original.hidden = showing;
        shown.hidden = !showing;
        toggle.textContent = showing ? t("原文", "Original") : t("译文", "Translation");
      });
      bar.prepend(toggle);
    }
  }

  async translateOne(li) {
    const found = await this.context.post(`${this.context.base}/translate`, { index: Number(li.dataset.index) });
    this.records[found.id] = { ...found, lang: this.settings.language, kind: "reply" };
    this.show(li, li.querySelector(":scope > .msg-actions"), this.records[found.id]);
  }

  // An input is translated before chat.js sends it: its click is held, the box gets the model's
  // language, and the click goes on.
  async intercept(event) {
    const send = document.getElementById("send");
    if (this.passing || event.target !== send) return;
    const composer = document.getElementById("composer");
    const text = composer.value.trim();
    if (!text || text.startsWith("/")) return;  // a slash command is not words to translate
    event.stopImmediatePropagation();
    event.preventDefault();
    try {
      const found = await this.context.post(`${this.context.base}/translate-input`, { text });
      composer.value = found.text;
      this.typed = { original: text, sent: found.text };
    } catch (error) {
      this.context.toast(error.message, true);
      return;
    }
    this.passing = true;
    try { send.click(); } finally { this.passing = false; }
  }

  async afterBeat() {
    if (!this.on) return;
    const messages = this.context.messages();
    if (this.typed) {
      const typed = this.typed;
      this.typed = null;
      const mine = [...messages].reverse().find((li) => li.classList.contains("user"));
      if (mine) {
        await this.context.post(`${this.context.base}/keep-input`, { index: Number(mine.dataset.index), original: typed.original });
        this.records = await api(`${this.context.base}/translations`);
        this.context.redecorate();
      }
    }
    if (this.auto === "replies" || this.auto === "both") {
      const reply = [...messages].reverse().find((li) => li.classList.contains("assistant"));
      if (reply && !this.records[reply.dataset.id]) await this.translateOne(reply);
    }
  }
}
