// Pictures on the chat page (SillyTavern's image generation extension): a picture of the last reply,
// the character, the scene, or of a prompt of your own; the side model writes the prompt from the
// chat, the image server draws it, and the picture comes into the chat as a message (kept with it).
import { t } from "./i18n.js";
import { button } from "./chat_message.js";

const KINDS = [["last", "最后一条回复", "the last reply"], ["character", "角色", "the character"],
  ["scene", "场景", "the scene"], ["free", "自己写提示词", "a prompt of my own"]];

export class Pictures {
  constructor(context, settings) {
    this.name = "pictures";
    this.context = context;
    this.settings = settings;
    this.on = Boolean(settings.backend);
  }

  panel(box) {
    if (!this.on) { this.context.offNote(box, "生图：未开启。", "Pictures: off."); return; }
    const kind = document.createElement("select");
    kind.id = "picture-kind";
    kind.setAttribute("aria-label", t("画什么", "a picture of"));
    for (const [value, zh, en] of KINDS) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = t(zh, en);
      kind.append(option);
    }
    const prompt = document.createElement("input");
    prompt.id = "picture-prompt";
    prompt.placeholder = t("提示词", "prompt");
    prompt.hidden = true;
    kind.addEventListener("change", () => { prompt.hidden = kind.value !== "free"; });
    const go = button("生成图片", "Make a picture", () => this.make(kind.value, prompt.value, go), "picture-go");
    go.id = "picture-go";
    const row = document.createElement("div");
    row.className = "extras-row";
    row.append(kind, prompt, go);
    box.append(row);
  }

  async make(kind, prompt, go) {
    if (kind === "free" && !prompt.trim()) { this.context.toast(t("先写提示词", "Write a prompt first"), true); return; }
    go.disabled = true;
    document.body.dataset.picturing = "1";
    try {
      const made = await this.context.post(`${this.context.base}/picture`, { kind, prompt });
      document.dispatchEvent(new CustomEvent("pear-chat-changed"));
      this.context.toast(t(`图片好了：${made.prompt}`, `Picture made: ${made.prompt}`));
    } catch (error) {
      this.context.toast(error.message, true);
    } finally {
      go.disabled = false;
      delete document.body.dataset.picturing;
    }
  }

  decorate() {}

  start() { return Promise.resolve(); }

  afterBeat() { return Promise.resolve(); }
}
