// The card's own regex scripts: ask once when the card is first played here, then offer a switch.
import { api, toast } from "./common.js";

const page = document.getElementById("chat");
const ask = document.getElementById("regex-allow-ask");
const toggle = document.getElementById("regex-allow-toggle");
const switchBox = document.getElementById("regex-allow-switch");

function url(card) {
  return `/api/cards/${encodeURIComponent(card)}/regex-allowance`;
}

function show(state) {
  switchBox.hidden = state.scripts.length === 0;
  toggle.checked = state.allowed === true;
  ask.hidden = !(state.scripts.length && state.allowed === null);
  document.getElementById("regex-allow-question").textContent = state.question;
}

async function answer(card, allowed) {
  try {
    const state = await api(url(card), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ allowed }),
    });
    show(state);
    toast(allowed ? "已允许卡内正则脚本" : "卡内正则脚本不会运行");
  } catch (error) {
    toast(error, true);
  }
}

async function start() {
  if (!page || !ask) return;
  const card = page.dataset.card;
  document.getElementById("regex-allow-yes").addEventListener("click", () => answer(card, true));
  document.getElementById("regex-allow-no").addEventListener("click", () => answer(card, false));
  toggle.addEventListener("change", () => answer(card, toggle.checked));
  try {
    show(await api(url(card)));
  } catch (error) {
    toast(error, true);
  }
}

start();
