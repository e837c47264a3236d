// The approval dialog: the sandbox asks before a tool call; the beat waits for one of the four
// answers (once / session / card / deny; typed words count as deny and go to the model).
import { api } from "./common.js";

const dialog = document.getElementById("approval");
const queue = [];
let showing = null;

function show(prompt) {
  showing = prompt;
  document.getElementById("approval-tool").textContent = prompt.tool;
  document.getElementById("approval-args").textContent = JSON.stringify(prompt.args, null, 2);
  document.getElementById("approval-unit").textContent = prompt.unit || "—";
  document.getElementById("approval-access").textContent = prompt.access || "—";
  document.getElementById("approval-reason").textContent = prompt.reason || "—";
  document.getElementById("approval-text").value = "";
  dialog.showModal();
}

async function answer(choice) {
  const prompt = showing;
  if (!prompt) return;
  const text = document.getElementById("approval-text").value.trim();
  showing = null;
  dialog.close();
  await api(`/api/beats/${prompt.beat_id}/approval`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ call_id: prompt.call_id, choice: text ? "deny" : choice, text }),
  });
  if (queue.length) show(queue.shift());
}

for (const button of dialog.querySelectorAll(".approval-choices button")) {
  button.addEventListener("click", () => answer(button.value));
}
// Escape would leave the beat waiting: treat it as deny.
dialog.addEventListener("cancel", (event) => { event.preventDefault(); answer("deny"); });

export function askApproval(prompt) {
  if (showing) queue.push(prompt); else show(prompt);
}
