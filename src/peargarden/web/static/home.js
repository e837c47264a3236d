// Home: import by drag and drop (or the file picker), with progress and readable errors.
import { toast } from "./common.js";

const zone = document.getElementById("dropzone");
const input = document.getElementById("file-input");
const bar = document.getElementById("import-progress");

const picker = document.getElementById("import-card");

// A card that is here already: replace it (its chats and settings stay; the vault keeps the old
// one) or keep both — the user says which, then the same files go again with the answer.
const again = document.getElementById("import-again");
function askAgain(names) {
  document.getElementById("import-again-text").textContent = `已经有这些角色卡：${names.join("、")}。替换，还是另存一份？`;
  return new Promise((resolve) => {
    for (const button of again.querySelectorAll("button")) button.onclick = () => { again.close(); resolve(button.value); };
    again.onclose = () => resolve("");
    again.showModal();
  });
}

function upload(files, onConflict = "ask") {
  if (!files.length) return;
  // A SillyTavern chat belongs to a card: the picker says which (lorebooks and cards ignore it).
  const chats = files.some((file) => file.name.toLowerCase().endsWith(".jsonl"));
  if (chats && !picker.value) {
    picker.classList.add("needed");
    picker.focus();
    toast("聊天记录属于哪张卡？请先在「聊天记录导入到」里选一张", true);
    return;
  }
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  if (chats) form.append("card", picker.value);
  form.append("on_conflict", onConflict);
  const request = new XMLHttpRequest();
  request.open("POST", "/api/import");
  bar.hidden = false;
  bar.value = 0;
  request.upload.onprogress = (event) => { if (event.lengthComputable) bar.value = (100 * event.loaded) / event.total; };
  request.onload = () => {
    bar.hidden = true;
    let body = {};
    try { body = JSON.parse(request.responseText); } catch { body = { error: request.responseText }; }
    if (request.status === 409 && body.conflicts) {
      askAgain(body.conflicts).then((choice) => { if (choice) upload(files, choice); });
      return;
    }
    if (request.status >= 400) { toast(`导入失败：${body.error || request.status}`, true); return; }
    toast(`已导入 ${body.written.length} 个文件`);
    // An imported chat opens at once; anything else shows up in the grid.
    const chat = body.written.map((path) => path.split("/")).find((parts) => parts[0] === "cards" && parts[2] === "chats");
    setTimeout(() => {
      if (chat) location.href = `/chat/${encodeURIComponent(chat[1])}/${encodeURIComponent(chat[3])}`;
      else location.reload();
    }, 600);
  };
  request.onerror = () => { bar.hidden = true; toast("导入失败：网络错误", true); };
  request.send(form);
}

zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
zone.addEventListener("dragleave", () => zone.classList.remove("over"));
zone.addEventListener("drop", (event) => { event.preventDefault(); zone.classList.remove("over"); upload([...event.dataTransfer.files]); });
input.addEventListener("change", () => upload([...input.files]));
