// Installing the built-in model from the home page (/api/embedded/setup): the runtime built (files
// compiled, time left), the model downloaded (MB), the self-test — each as it happens, in the
// server's background, so a reload shows it again; one at a time; "停止" stops it.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const NAMES = {
  runtime: () => t("运行时（llama.cpp，在这台电脑上编译）", "The runtime (llama.cpp, built on this computer)"),
  model: () => t("模型（约 490 MB）", "The model (about 490 MB)"),
  check: () => t("自检（在这台电脑上试运行）", "Self-test (a trial run on this computer)"),
};
const STATES = {
  waiting: ["等待", "waiting"], running: ["进行中", "working"], done: ["完成", "done"],
  skipped: ["已就绪", "ready"], failed: ["失败", "failed"], cancelled: ["已停止", "stopped"],
};

function post(path, body = {}) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

function minutes(seconds) {
  return seconds < 60 ? t(`约 ${Math.ceil(seconds)} 秒`, `about ${Math.ceil(seconds)} s`)
    : t(`约 ${Math.ceil(seconds / 60)} 分钟`, `about ${Math.ceil(seconds / 60)} min`);
}

function stepItem(step) {
  const li = document.createElement("li");
  li.className = `setup-step ${step.state}`;
  li.dataset.step = step.name;
  const head = document.createElement("div");
  head.className = "setup-head";
  const name = document.createElement("strong");
  name.textContent = NAMES[step.name]();
  const state = document.createElement("span");
  state.className = "setup-state";
  state.textContent = t(...STATES[step.state]);
  head.append(name, " ", state);
  li.append(head);
  if (step.state === "running" && step.total > 0) {
    const bar = document.createElement("progress");
    bar.max = step.total;
    bar.value = step.done;
    li.append(bar);
  }
  if (step.state === "running" || step.state === "failed") {
    const line = document.createElement("div");
    line.className = "setup-text";
    const left = step.left != null ? ` · ${t("还要", "left: ")}${minutes(step.left)}` : "";
    line.textContent = `${step.text}${left}`;
    li.append(line);
  }
  return li;
}

// Draws the work's state; *onFinished*(state) once it is no longer running.
function draw(setup) {
  const box = $("embedded-setup");
  box.hidden = setup.state === "idle";
  $("setup-steps").replaceChildren(...setup.steps.map(stepItem));
  $("setup-cancel").hidden = setup.state !== "running";
  const error = $("setup-error");
  // A failure's line, or the note a finished set-up leaves (a self-test without a conclusion).
  const line = setup.state === "failed" ? setup.error : setup.state === "done" ? setup.note : "";
  error.hidden = !line;
  error.textContent = line || "";
  // A stopped or failed set-up may start again: its button is back before the state says so.
  if (setup.state === "failed" || setup.state === "cancelled") $("setup-start").hidden = false;
  document.body.dataset.embeddedSetup = setup.state;
}

let polling = null;
function follow(onFinished) {
  clearTimeout(polling);
  const tick = async () => {
    try {
      const setup = await api("/api/embedded/setup");
      draw(setup);
      if (setup.state === "running") { polling = setTimeout(tick, 1000); return; }
      onFinished(setup);
    } catch (error) { toast(error, true); }
  };
  tick();
}

// The install button, the stop button, and the work already running (a reload) picked up again.
export function embeddedSetup(onFinished) {
  $("setup-start").addEventListener("click", async () => {
    try {
      draw(await post("/api/embedded/setup"));
      $("setup-start").hidden = true;
      follow(onFinished);
    } catch (error) { toast(error, true); }
  });
  $("setup-cancel").addEventListener("click", async () => {
    try { draw(await post("/api/embedded/setup/cancel")); } catch (error) { toast(error, true); }
  });
  return api("/api/embedded/setup").then((setup) => {
    draw(setup);
    if (setup.state === "running") follow(onFinished);
    return setup;
  });
}
