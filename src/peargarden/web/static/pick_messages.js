// SillyTavern's "delete messages": tick several, delete them at once (a new branch without them; the
// old one stays in the tree).  A page gives its root, its message list and what deleting does; its
// markup has the "删除消息" button (#pick-messages) and the bar (#picking) with the count, delete and cancel.
import { t } from "./i18n.js";

export function pickMessages(root, list, onDelete) {
  const picked = new Set();
  function showPicked() {
    document.getElementById("picked-count").textContent = t(`已选 ${picked.size} 条`, `${picked.size} selected`);
    document.getElementById("delete-picked").disabled = picked.size === 0;
  }
  function stopPicking() {
    picked.clear();
    root.classList.remove("picking-messages");
    document.getElementById("picking").hidden = true;
    for (const box of list.querySelectorAll(".msg-head .pick")) box.checked = false;
  }
  document.getElementById("pick-messages").addEventListener("click", () => {
    root.classList.add("picking-messages");
    document.getElementById("picking").hidden = false;
    showPicked();
  });
  list.addEventListener("change", (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.classList.contains("pick")) return;
    if (box.checked) picked.add(Number(box.value)); else picked.delete(Number(box.value));
    showPicked();
  });
  document.getElementById("cancel-pick").addEventListener("click", stopPicking);
  document.getElementById("delete-picked").addEventListener("click", async () => {
    if (!picked.size) return;
    if (!confirm(t(`删除选中的 ${picked.size} 条消息？（旧版本仍在分支树里）`,
      `Delete the ${picked.size} selected messages? (The old version stays in the branch tree.)`))) return;
    const indices = [...picked];
    stopPicking();
    await onDelete(indices);
  });
}
