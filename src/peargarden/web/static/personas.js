// Personas (who the user plays): the library's list with pictures; add one or change its description,
// give it a picture, delete it (the vault keeps a snapshot first).
import { api, toast } from "./common.js";
import { el, postJson } from "./dom.js";
import { t } from "./i18n.js";

const list = document.getElementById("personas");
document.head.append(el("link", { rel: "stylesheet", href: new URL("personas.css", import.meta.url).href }));

function avatarInput(persona) {
  const input = el("input", { type: "file", accept: "image/png,image/jpeg,image/webp,image/gif", hidden: "", class: "persona-avatar-file" });
  input.addEventListener("change", async () => {
    if (!input.files.length) return;
    const form = new FormData();
    form.append("file", input.files[0]);
    try {
      await api(`/api/personas/${encodeURIComponent(persona.name)}/avatar`, { method: "POST", body: form });
      await load();
      toast(t(`已更换「${persona.name}」的头像`, `Picture of "${persona.name}" changed`));
    } catch (error) { toast(error, true); }
  });
  return el("label", { class: "link persona-avatar-set" }, t("换头像", "Picture"), input);
}

async function load() {
  const personas = await api("/api/personas");
  list.textContent = "";
  for (const persona of personas) {
    const picture = persona.avatar
      ? el("img", { class: "persona-avatar", src: `${persona.avatar}?size=thumb`, alt: persona.name })
      : el("span", { class: "persona-avatar empty", text: persona.name.slice(0, 1) });
    const remove = el("button", { type: "button", class: "link persona-delete", text: t("删除", "Delete") });
    remove.addEventListener("click", async () => {
      if (!confirm(t(`删除人设「${persona.name}」？保险库会先存一份快照。`, `Delete persona "${persona.name}"? The vault keeps a snapshot first.`))) return;
      try {
        await postJson(`/api/personas/${encodeURIComponent(persona.name)}/delete`);
        await load();
        toast(t(`已删除人设「${persona.name}」`, `Persona "${persona.name}" deleted`));
      } catch (error) { toast(error, true); }
    });
    list.append(el("li", { "data-persona": persona.name, class: "persona-row" }, picture,
      el("span", { class: "persona-text" }, el("strong", { text: persona.name }), persona.description ? ` — ${persona.description}` : ""),
      avatarInput(persona), remove));
  }
  if (!personas.length) list.append(el("li", { text: t("（还没有人设）", "(no personas yet)") }));
}

document.getElementById("persona-save").addEventListener("click", async () => {
  const name = document.getElementById("persona-new-name").value.trim();
  const description = document.getElementById("persona-new-description").value.trim();
  try {
    await postJson("/api/personas", { name, description });
    document.getElementById("persona-new-name").value = "";
    document.getElementById("persona-new-description").value = "";
    await load();
    toast(t(`已保存人设「${name}」`, `Persona "${name}" saved`));
  } catch (error) { toast(error, true); }
});

load().then(() => { list.dataset.ready = "1"; }).catch((error) => toast(error, true));
