// The home page's first reply: when the main model cannot answer yet, the two ways to get one — the
// built-in model, or a connection made inline (connect_form.js); once one works, a line saying which
// model answers and where to start.
import { api, toast } from "./common.js";
import { t, translate } from "./i18n.js";
import { connectForm } from "./connect_form.js";
import { embeddedSetup } from "./embedded_setup.js";

const $ = (id) => document.getElementById(id);

function whyNot(state) {
  if (state.provider !== "local") return t(`连接「${state.provider}」还没有地址。`, `The connection "${state.provider}" has no address.`);
  if (!state.embedded.runtime) return t("还没有能回话的模型：内置模型的运行时还没有安装。", "No model can answer yet: the built-in model's runtime is not installed.");
  return t("还没有能回话的模型：内置模型还没有下载。", "No model can answer yet: the built-in model is not downloaded.");
}

function embeddedLine(embedded) {
  if (embedded.ready) return t(`已安装：${embedded.model}`, `Installed: ${embedded.model}`);
  if (!embedded.runtime) return t("运行时（llama.cpp）和模型都还没有安装。", "Neither the runtime (llama.cpp) nor the model is installed.");
  return t("运行时已安装，模型还没有下载。", "The runtime is installed; the model is not downloaded.");
}

function draw(state) {
  $("first-reply").hidden = state.ready;
  $("first-reply-ready").hidden = !state.ready;
  if (state.ready) {
    const who = state.provider === "local" ? t(`内置模型 ${state.model}`, `the built-in model ${state.model}`)
      : `${state.model || t("默认模型", "the default model")}（${state.provider}）`;
    $("first-reply-model").textContent = t(`回话的模型：${who}。`, `Answering: ${who}.`);
  } else {
    $("first-reply-why").textContent = whyNot(state);
  }
  $("embedded-state").textContent = embeddedLine(state.embedded);
  $("use-embedded").hidden = !state.embedded.ready || state.provider === "local";
  $("setup-start").hidden = state.embedded.ready || installing;
  document.body.dataset.firstReply = state.ready ? "ready" : "needed";
}

let installing = false;  // the install's own progress replaces its button while it runs

async function reread() {
  try { draw(await api("/api/first-reply")); } catch (error) { toast(error, true); }
}

$("use-embedded").addEventListener("click", async () => {
  try { draw(await api("/api/first-reply/embedded", { method: "POST" })); } catch (error) { toast(error, true); }
});
connectForm((state) => draw(state));
const setup = embeddedSetup((finished) => {
  installing = false;
  if (finished.state === "done") toast(t("内置模型装好了", "The built-in model is installed"));
  reread();
});
Promise.all([api("/api/first-reply"), setup]).then(([state, work]) => {
  installing = work.state === "running";
  draw(state);
  translate($("first-reply"));
}).catch((error) => toast(error, true));
document.getElementById("setup-start").addEventListener("click", () => { installing = true; });
