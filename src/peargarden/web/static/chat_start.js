// A card without chats: the chat starts only when the user asks for it (a POST), never on page load.
import { api, toast } from "./common.js";

const card = document.getElementById("chat-start").dataset.card;
document.getElementById("start-chat").addEventListener("click", async () => {
  try {
    const fresh = await api(`/api/chats/${encodeURIComponent(card)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    location.href = `/chat/${encodeURIComponent(card)}/${encodeURIComponent(fresh.chat_id)}`;
  } catch (error) { toast(error, true); }
});
document.body.dataset.ready = "1";
