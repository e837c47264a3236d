// The member strip of a group chat: each member's face and name, a mute switch and a "speak now"
// button (force-speak: that member answers at once, muted or not).  The page passes what happens.
import { t } from "./i18n.js";

export function drawMemberStrip(box, members, { speaking = "", busy = false, onMute, onSpeak }) {
  box.textContent = "";
  for (const member of members) {
    const chip = document.createElement("span");
    chip.className = "member";
    chip.dataset.card = member.card;
    chip.classList.toggle("muted", member.muted);
    chip.classList.toggle("speaking", member.card === speaking);
    const img = document.createElement("img");
    img.src = `/api/cards/${encodeURIComponent(member.card)}/avatar?size=thumb`;
    img.alt = "";
    const name = document.createElement("strong");
    name.className = "member-name";
    name.textContent = member.name;
    const mute = document.createElement("button");
    mute.type = "button";
    mute.className = "link mute";
    mute.textContent = member.muted ? t("取消静音", "Unmute") : t("静音", "Mute");
    mute.title = member.muted ? t("让TA重新参与发言", "Let them speak again") : t("TA只在被点名时发言", "They speak only when called on");
    mute.addEventListener("click", () => onMute(member, !member.muted));
    const speak = document.createElement("button");
    speak.type = "button";
    speak.className = "secondary speak";
    speak.textContent = t("让TA说", "Speak");
    speak.title = t("这位成员马上接话（静音的也行）", "This member answers now (muted too)");
    speak.disabled = busy;
    speak.addEventListener("click", () => onSpeak(member));
    chip.append(img, name, mute, speak);
    box.append(chip);
  }
}
