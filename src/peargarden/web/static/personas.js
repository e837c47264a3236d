// Personas (who the user plays): the library's list, add one or change its description.
import { api, toast } from "./common.js";
import { t } from "./i18n.js";

const list = document.getElementById("personas");

async function load() {
  const personas = await api("/api/personas");
  list.textContent = "";
  for (const persona of personas) {
    const li = document.createElement("li");
    li.dataset.persona = persona.name;
    const name = document.createElement("strong");
    name.textContent = persona.name;
    li.append(name, persona.description ? ` — ${persona.description}` : "");
    list.append(li);
  }
  if (!personas.length) {
    const li = document.createElement("li");
    li.textContent = t("（还没有人设）", "(no personas yet)");
    list.append(li);
  }
}

document.getElementById("persona-save").addEventListener("click", async () => {
  const name = document.getElementById("persona-new-name").value.trim();
  const description = document.getElementById("persona-new-description").value.trim();
  try {
    await api("/api/personas", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name, description }) });
    document.getElementById("persona-new-name").value = "";
    document.getElementById("persona-new-description").value = "";
    toast(t(`已保存人设「${name}」`, `Persona "${name}" saved`));
    await load();
  } catch (error) { toast(error.message, true); }
});

load().catch((error) => toast(error.message, true));
