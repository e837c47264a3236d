// Switch the persona of the open chat (from the next message on; recorded on the branch).  Added to
// the chat bar beside "you play"; the chat page itself does not need to know.
import { api, toast } from "./common.js";
import { el, postJson } from "./dom.js";
import { t } from "./i18n.js";

const root = document.getElementById("chat");
const card = encodeURIComponent(root.dataset.card);
const chat = encodeURIComponent(root.dataset.chat);

async function start() {
  const anchor = document.querySelector(".chat-bar .persona");
  if (!anchor) return;
  const personas = await api("/api/personas");
  const select = el("select", { id: "persona-switch", "aria-label": t("换一个人设", "switch persona") });
  select.append(el("option", { value: "", text: t("换人设…", "Switch persona…") }));
  for (const persona of personas) select.append(el("option", { value: persona.name, text: persona.name }));
  select.disabled = personas.length === 0;
  select.addEventListener("change", async () => {
    if (!select.value) return;
    try {
      const state = await postJson(`/api/chats/${card}/${chat}/persona`, { persona: select.value });
      document.getElementById("persona-name").textContent = state.persona;
      // Messages that carry no persona of their own show the active one's picture: redraw them.
      document.dispatchEvent(new CustomEvent("pear-chat-changed"));
      toast(t(`现在你扮演「${state.persona}」`, `You now play "${state.persona}"`));
    } catch (error) { toast(error, true); }
    select.value = "";
  });
  anchor.after(select);
  root.dataset.personaSwitch = "ready";
}

start().catch((error) => toast(error, true));
