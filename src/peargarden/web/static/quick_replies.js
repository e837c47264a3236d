// Quick Replies above the chat bar, as SillyTavern shows them: the buttons of the sets switched on for
// every chat and for this chat; a click runs the reply's message (a "/" script runs as STscript,
// anything else is sent as the user's message, or put into the box when the set says "don't send");
// right click opens the sets a reply lists in its context menu; replies marked for it run on their
// own when the chat opens, when the page starts, after the user's message and after a reply.  The
// manager (⚡) imports SillyTavern set files, switches sets on, edits and exports them.
import { api, toast } from "./common.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { isScript, runScript } from "./slash.js";

function jsonRequest(method, path, body) {
  return api(path, { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

export class QuickReplies {
  constructor({ base, card, chatId, bar, composer, send }) {
    Object.assign(this, { base, card, chatId, bar, composer, send });
    this.state = { sets: [], global: [], chat: [] };
  }

  async load() {
    const query = new URLSearchParams({ card: this.card, chat: this.chatId });
    this.state = await api(`/api/quick-replies?${query}`);
    this.draw();
  }

  set(name) { return this.state.sets.find((s) => s.name === name); }

  // The sets switched on here: every chat's first, then this chat's; each once.
  active() {
    const seen = new Set();
    const out = [];
    for (const link of [...this.state.global, ...this.state.chat]) {
      const found = this.set(link.set);
      if (found && !seen.has(found.name)) { seen.add(found.name); out.push([found, link.isVisible !== false]); }
    }
    return out;
  }

  draw() {
    this.bar.replaceChildren();
    for (const [set, visible] of this.active()) {
      if (!visible) continue;
      const group = el("div", { class: "qr-set", "data-set": set.name });
      if (set.color && set.color !== "transparent") group.style.setProperty("--qr-color", set.color);
      for (const reply of set.qrList) {
        if (reply.isHidden) continue;
        const label = reply.label || reply.icon || "…";
        const button = el("button", { type: "button", class: "qr-button", title: reply.title || reply.message, text: label });
        button.addEventListener("click", () => this.run(set, reply));
        button.addEventListener("contextmenu", (event) => this.menu(event, reply));
        group.append(button);
      }
      this.bar.append(group);
    }
    this.bar.hidden = this.bar.childElementCount === 0;
  }

  // A reply's context menu: the replies of the sets it names.
  menu(event, reply) {
    const sets = (reply.contextList || []).map((item) => this.set(item.set)).filter(Boolean);
    if (!sets.length) return;
    event.preventDefault();
    document.querySelector(".qr-menu")?.remove();
    const menu = el("ul", { class: "qr-menu", role: "menu" });
    for (const set of sets) {
      menu.append(el("li", { class: "qr-menu-title", text: set.name }));
      for (const item of set.qrList) {
        const entry = el("li", { role: "menuitem", tabindex: "0", text: item.label || item.title });
        entry.addEventListener("click", () => { menu.remove(); this.run(set, item); });
        menu.append(entry);
      }
    }
    menu.style.left = `${event.clientX}px`;
    menu.style.top = `${event.clientY}px`;
    document.body.append(menu);
    setTimeout(() => document.addEventListener("click", () => menu.remove(), { once: true }), 0);
  }

  async run(set, reply) {
    let text = reply.message || "";
    if (set.injectInput && this.composer.value) {
      text = set.placeBeforeInput ? `${text} ${this.composer.value}` : `${this.composer.value} ${text}`;
    }
    try {
      if (isScript(text)) {
        await runScript(this.base, text, this.composer);
      } else if (set.disableSend) {
        this.composer.value = text;
        this.composer.focus();
      } else {
        this.composer.value = "";
        this.send(text);
      }
    } catch (error) {
      toast(error.message, true);
    }
  }

  // Replies marked to run on their own at *moment* (SillyTavern's automation switches).
  async automate(moment) {
    const field = this.state.automations ? this.state.automations[moment] : null;
    if (!field) return;
    for (const [set] of this.active()) {
      for (const reply of set.qrList) {
        if (reply[field]) await this.run(set, { ...reply, message: reply.message });
      }
    }
  }

  // -- the manager --------------------------------------------------------------------------------------

  async manage() {
    await this.load();
    const box = el("dialog", { class: "qr-manager" });
    const close = () => { box.close(); box.remove(); this.load().catch(() => {}); };
    const rows = el("ul", { class: "qr-set-list" });
    const on = (list, name) => list.some((link) => link.set === name);
    const drawRows = () => {
      rows.replaceChildren();
      for (const set of this.state.sets) {
        const global = el("input", { type: "checkbox", "aria-label": t("所有对话", "Every chat") });
        global.checked = on(this.state.global, set.name);
        global.addEventListener("change", () => this.toggle("global", set.name, global.checked));
        const chat = el("input", { type: "checkbox", "aria-label": t("本对话", "This chat") });
        chat.checked = on(this.state.chat, set.name);
        chat.addEventListener("change", () => this.toggle("chat", set.name, chat.checked));
        const edit = el("button", { type: "button", class: "secondary", text: t("编辑", "Edit") });
        edit.addEventListener("click", () => this.edit(set, drawRows));
        const remove = el("button", { type: "button", class: "danger", text: t("删除", "Delete") });
        remove.addEventListener("click", async () => {
          await api(`/api/quick-replies/${encodeURIComponent(set.name)}`, { method: "DELETE" });
          await this.load();
          drawRows();
        });
        const exportLink = el("a", { href: `/api/quick-replies/${encodeURIComponent(set.name)}/export`, download: `${set.name}.json`, text: t("导出", "Export") });
        rows.append(el("li", { "data-set": set.name }, el("strong", { text: set.name }),
          el("label", {}, global, t(" 所有对话", " every chat")), el("label", {}, chat, t(" 本对话", " this chat")),
          edit, exportLink, remove));
      }
    };
    const file = el("input", { type: "file", accept: ".json,application/json", "aria-label": t("导入 Quick Reply 集", "Import a Quick Reply set") });
    file.addEventListener("change", async () => {
      for (const picked of file.files) {
        const form = new FormData();
        form.append("file", picked);
        try {
          await api("/api/quick-replies/import", { method: "POST", body: form });
        } catch (error) { toast(error.message, true); }
      }
      file.value = "";
      await this.load();
      drawRows();
    });
    const create = el("button", { type: "button", class: "secondary", text: t("新建集", "New set") });
    create.addEventListener("click", () => this.edit({ name: "", qrList: [] }, drawRows));
    const done = el("button", { type: "button", text: t("完成", "Done") });
    done.addEventListener("click", close);
    box.append(el("h2", { text: "Quick Replies" }), rows, el("p", {}, el("label", {}, t("导入：", "Import: "), file), " ", create), done);
    box.addEventListener("cancel", (event) => { event.preventDefault(); close(); });
    document.body.append(box);
    drawRows();
    box.showModal();
  }

  async toggle(where, name, enabled) {
    const list = where === "global" ? this.state.global : this.state.chat;
    const links = list.filter((link) => link.set !== name);
    if (enabled) links.push({ set: name, isVisible: true });
    const path = where === "global" ? "/api/quick-replies/global" : `${this.base}/quick-replies`;
    const answer = await jsonRequest("PUT", path, { setList: links });
    this.state[where] = answer[where];
    this.draw();
  }

  // A set's editor: its name and each reply's label, message, title and switches.
  edit(set, after) {
    const draft = JSON.parse(JSON.stringify(set));
    const box = el("dialog", { class: "qr-editor" });
    const name = el("input", { type: "text", value: draft.name, "aria-label": t("集的名字", "Set name") });
    const list = el("ol", { class: "qr-reply-list" });
    const switches = [["executeOnStartup", "启动时", "On start"], ["executeOnUser", "用户发言后", "After user"],
      ["executeOnAi", "回复后", "After reply"], ["executeOnChatChange", "打开对话时", "On chat open"],
      ["isHidden", "隐藏", "Hidden"]];
    const drawReplies = () => {
      list.replaceChildren();
      draft.qrList.forEach((reply, index) => {
        const label = el("input", { type: "text", value: reply.label || "", "aria-label": t("按钮文字", "Label") });
        label.addEventListener("input", () => { reply.label = label.value; });
        const title = el("input", { type: "text", value: reply.title || "", "aria-label": t("提示", "Tooltip") });
        title.addEventListener("input", () => { reply.title = title.value; });
        const message = el("textarea", { rows: "2", "aria-label": t("内容（/ 开头是脚本）", "Message (a / line is a script)") });
        message.value = reply.message || "";
        message.addEventListener("input", () => { reply.message = message.value; });
        const flags = el("span", { class: "qr-flags" });
        for (const [key, zh, en] of switches) {
          const box = el("input", { type: "checkbox" });
          box.checked = Boolean(reply[key]);
          box.addEventListener("change", () => { reply[key] = box.checked; });
          flags.append(el("label", {}, box, ` ${t(zh, en)}`));
        }
        const remove = el("button", { type: "button", class: "danger", text: "×", "aria-label": t("删除这条", "Remove") });
        remove.addEventListener("click", () => { draft.qrList.splice(index, 1); drawReplies(); });
        list.append(el("li", {}, label, title, message, flags, remove));
      });
    };
    const add = el("button", { type: "button", class: "secondary", text: t("加一条", "Add a reply") });
    add.addEventListener("click", () => {
      const next = Math.max(0, ...draft.qrList.map((r) => Number(r.id) || 0)) + 1;
      draft.qrList.push({ id: next, label: "", message: "", title: "" });
      drawReplies();
    });
    const save = el("button", { type: "button", text: t("保存", "Save") });
    save.addEventListener("click", async () => {
      draft.name = name.value.trim();
      try {
        await jsonRequest("PUT", "/api/quick-replies", { data: draft, rename_from: set.name || null });
        box.close(); box.remove();
        await this.load();
        after();
      } catch (error) { toast(error.message, true); }
    });
    const cancel = el("button", { type: "button", class: "secondary", text: t("取消", "Cancel") });
    cancel.addEventListener("click", () => { box.close(); box.remove(); });
    box.append(el("h2", { text: t("编辑 Quick Reply 集", "Edit a Quick Reply set") }), el("label", {}, t("名字 ", "Name "), name), list, add, el("p", {}, save, " ", cancel));
    document.body.append(box);
    drawReplies();
    box.showModal();
  }
}
