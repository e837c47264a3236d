// Expressions on the chat page (SillyTavern's expressions extension): the last reply's expression as
// its speaker's sprite beside the chat (in a group, one sprite per member who has spoken: the
// expression of their last reply), or full height behind it in a visual-novel layout.  The label is
// the server's (the side model, cached per message, or the reply's words: web/api_expressions.py).
import { t } from "./i18n.js";

export class Expressions {
  constructor(context, settings, sprites) {
    this.name = "expressions";
    this.context = context;
    this.settings = settings;
    this.sprites = sprites;  // card → its sprites
    this.on = settings.layout !== "off" && Object.values(sprites).some((rows) => rows.length > 0);
    this.shown = new Map();  // speaker's card → the message id whose expression is shown
    this.figures = new Map();  // speaker's card → its figure
  }

  panel(box) {
    this.box = box;
    if (this.settings.layout === "off") { this.context.offNote(box, "表情：已关闭。", "Expressions: off."); return; }
    if (!this.on) {
      this.context.offNote(box, "表情：没有表情立绘。", "Expressions: no sprites.");
      return;
    }
    this.stage = document.createElement("div");
    this.stage.className = "extras-stage";
    const vn = document.createElement("label");
    vn.className = "extras-vn";
    const check = document.createElement("input");
    check.type = "checkbox";
    check.id = "extras-vn";
    const kept = localStorage.getItem("pear-vn");
    check.checked = kept ? kept === "1" : this.settings.layout === "vn";
    const apply = () => document.getElementById("chat").classList.toggle("vn", check.checked);
    check.addEventListener("change", () => { localStorage.setItem("pear-vn", check.checked ? "1" : "0"); apply(); });
    apply();
    vn.append(check, ` ${t("全屏立绘（视觉小说）", "Full-height sprite (visual novel)")}`);
    box.append(this.stage, vn);
  }

  figure(speaker) {
    let found = this.figures.get(speaker);
    if (!found) {
      found = document.createElement("figure");
      found.className = "extras-sprite";
      found.dataset.card = speaker;
      found.hidden = true;
      const img = document.createElement("img");
      img.alt = "";
      found.append(img, document.createElement("figcaption"));
      this.stage.append(found);
      this.figures.set(speaker, found);
    }
    return found;
  }

  decorate() {}

  // The newest reply of each speaker (one speaker outside a group); each message asked for once.
  async show() {
    if (!this.on) return;
    const latest = new Map();
    for (const li of [...this.context.messages()].reverse()) {
      const speaker = li.dataset.card || this.context.card;
      if (li.classList.contains("assistant") && !latest.has(speaker) && (this.sprites[speaker] || []).length) latest.set(speaker, li);
    }
    for (const [speaker, li] of latest) {
      if (this.shown.get(speaker) === li.dataset.id) continue;
      const found = await this.context.post(`${this.context.base}/expression`, { index: Number(li.dataset.index) });
      this.shown.set(speaker, li.dataset.id);
      const figure = this.figure(speaker);
      figure.hidden = !found.sprite;
      if (found.sprite) figure.querySelector("img").src = found.sprite;
      figure.querySelector("figcaption").textContent = found.label;
      figure.dataset.label = found.label;
      this.stage.append(figure);  // the one who spoke last stands last (in front)
    }
  }

  start() { return this.show(); }

  afterBeat() { return this.show(); }
}
