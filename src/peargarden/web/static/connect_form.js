// A connection in one step (templates/connect_form.html): an address, its key (pasted: stored in the
// data folder as the settings page stores it; or an environment variable's name; or none), the
// endpoint's model list, a short test, then saved and made the main model (/api/first-reply).
import { api, fixLink } from "./common.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

function body() {
  const kind = document.querySelector("input[name='connect-key-kind']:checked").value;
  return {
    base_url: $("connect-url").value.trim(),
    key: kind === "key" ? $("connect-key").value.trim() : "",
    key_env: kind === "env" ? $("connect-key-env").value.trim() : "",
    model: $("connect-model").value.trim(),
  };
}

function post(path, data) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
}

// One line under the form: what the test said, or what went wrong (with the setting that fixes it).
function say(text, failed = false, fix = null) {
  const line = $("connect-result");
  line.textContent = text;
  line.classList.toggle("error", failed);
  const link = fixLink(fix);
  if (link && fix !== "connection") line.append(" ", link);  // the connection is this form itself
  line.hidden = false;
}

function showKeyKind() {
  const kind = document.querySelector("input[name='connect-key-kind']:checked").value;
  $("connect-key").hidden = kind !== "key";
  $("connect-key-env").hidden = kind !== "env";
  $("connect-key-hint").hidden = kind !== "key";
}

// *onConnected*(state) runs once the connection is saved and in force.
export function connectForm(onConnected) {
  for (const radio of document.querySelectorAll("input[name='connect-key-kind']")) radio.addEventListener("change", showKeyKind);
  showKeyKind();
  $("connect-list").addEventListener("click", async () => {
    try {
      const { models } = await post("/api/first-reply/models", body());
      const list = $("connect-models");
      list.textContent = "";
      for (const name of models) {
        const option = document.createElement("option");
        option.value = name;
        list.append(option);
      }
      if (models.length && !$("connect-model").value) $("connect-model").value = models[0];
      say(models.length ? t(`这个地址有 ${models.length} 个模型`, `${models.length} models here`)
        : t("这个地址没有列出模型：请直接填模型名", "No model listed: type the model's name"));
    } catch (error) { say(error.message, true, error.fix); }
  });
  $("connect-try").addEventListener("click", async () => {
    say(t("正在试……", "Trying…"));
    try {
      const { reply, seconds } = await post("/api/first-reply/try", body());
      say(t(`通了（${seconds} 秒）：${reply || "（空回复）"}`, `It answers (${seconds} s): ${reply || "(empty)"}`));
    } catch (error) { say(error.message, true, error.fix); }
  });
  $("connect-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const state = await post("/api/first-reply/connect", body());
      $("connect-key").value = "";
      say(t(`已保存为连接「${state.connection}」，现在由 ${state.model} 回复`,
        `Saved as connection "${state.connection}"; ${state.model} answers now`));
      onConnected(state);
    } catch (error) { say(error.message, true, error.fix); }
  });
}
