// Voices on the chat page (SillyTavern's TTS extension): 朗读 under each message plays it in its
// speaker's voice, the newest replies play on their own when asked to, and stop stops.  Audio from a
// speech server is kept per message in the page (and in the chat's cache on the server); the browser's
// own speech synthesis needs no server: the page asks only for the text and the voice's name.
import { t } from "./i18n.js";
import { button } from "./chat_message.js";

export class Voices {
  constructor(context, settings) {
    this.name = "tts";
    this.context = context;
    this.settings = settings;
    this.on = Boolean(settings.backend);
    this.kept = new Map();  // message id and text → an object URL of its audio
    this.audio = new Audio();
    this.audio.className = "extras-audio";
    this.queue = Promise.resolve();
  }

  get auto() {
    const kept = localStorage.getItem("pear-tts-auto");
    return this.on && (kept ? kept === "1" : this.settings.auto_play);
  }

  panel(box) {
    if (!this.on) { this.context.offNote(box, "语音：未开启。", "Voices: off."); return; }
    const line = document.createElement("p");
    line.className = "extras-status";
    line.textContent = t(`语音：${this.settings.backend}`, `Voices: ${this.settings.backend}`);
    const auto = document.createElement("label");
    const check = document.createElement("input");
    check.type = "checkbox";
    check.id = "tts-auto";
    check.checked = this.auto;
    check.addEventListener("change", () => localStorage.setItem("pear-tts-auto", check.checked ? "1" : "0"));
    auto.append(check, ` ${t("自动朗读回复", "Read replies aloud")}`);
    const stop = button("停止朗读", "Stop reading", () => this.stop(), "tts-stop");
    stop.id = "tts-stop";
    box.append(line, auto, stop, this.audio);
  }

  decorate(li, bar) {
    if (!this.on || bar.querySelector(".speak")) return;
    bar.append(button("朗读", "Read aloud", () => this.play(li).catch((e) => this.context.toast(e.message, true)), "speak"));
  }

  stop() {
    this.audio.pause();
    if (window.speechSynthesis) speechSynthesis.cancel();
    delete document.body.dataset.ttsPlaying;
  }

  async play(li) {
    this.stop();
    const index = Number(li.dataset.index);
    document.body.dataset.ttsPlaying = li.dataset.id;
    if (this.settings.backend === "browser") return this.say(await this.context.post(`${this.context.base}/speech-line`, { index }));
    const key = `${li.dataset.id}\n${li.querySelector(".msg-text")?.textContent || ""}`;
    let url = this.kept.get(key);
    if (!url) {
      const response = await fetch(`${this.context.base}/speech`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ index }),
      });
      if (!response.ok) {
        let message = `${response.status}`;
        try { message = (await response.json()).error || message; } catch { /* not JSON */ }
        throw new Error(message);
      }
      url = URL.createObjectURL(await response.blob());
      this.kept.set(key, url);
    }
    this.audio.src = url;
    const ended = new Promise((resolve) => { this.audio.onended = resolve; this.audio.onpause = resolve; });
    try {
      await this.audio.play();
    } catch {
      return undefined;  // the browser held the sound back (no click on the page yet): nothing to wait for
    }
    return ended;
  }

  // The browser's own voice: the one named for the speaker, else the first for the text's language.
  say(line) {
    if (!window.speechSynthesis) throw new Error(t("这个浏览器没有语音合成", "This browser has no speech synthesis"));
    const utterance = new SpeechSynthesisUtterance(line.text);
    const voices = speechSynthesis.getVoices();
    const named = voices.find((voice) => voice.name === line.voice || voice.voiceURI === line.voice);
    if (named) utterance.voice = named;
    utterance.rate = Number(this.settings.speed) || 1;
    const ended = new Promise((resolve) => { utterance.onend = resolve; utterance.onerror = resolve; });
    speechSynthesis.speak(utterance);
    return ended;
  }

  start() { return Promise.resolve(); }

  // The replies of the beat just done (and the words sent, with narrate_user), one after another.
  async afterBeat() {
    if (!this.auto) return;
    const messages = this.context.messages();
    const lastUser = messages.map((li) => li.classList.contains("user")).lastIndexOf(true);
    const fresh = messages.slice(lastUser + 1).filter((li) => li.classList.contains("assistant"));
    if (this.settings.narrate_user && lastUser >= 0) fresh.unshift(messages[lastUser]);
    this.queue = this.queue.then(async () => {
      for (const li of fresh) await this.play(li).catch((e) => this.context.toast(e.message, true));
    });
  }
}
