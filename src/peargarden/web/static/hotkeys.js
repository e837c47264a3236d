// SillyTavern's chat hotkeys, decided without touching the page: which action a key press asks for.
//   Left / Right      swipe the last reply (no modifier, nothing typed in the chat bar)
//   Up / Ctrl+Up      edit the last message / the last message of yours (nothing typed)
//   Ctrl+Enter        regenerate the last reply (nothing typed; with text it sends, as before)
//   Alt+Enter         continue the last reply (nothing typed)
//   Escape            stop the reply being written, or leave a message edit
// A key pressed in another field (an edit box, a select) is that field's own, but Escape; a key that
// ends an IME composition (pinyin) is never a hotkey, nor any key while a dialog is open (Escape
// there answers the approval dialog, it must not also stop the beat).

// press: {key, ctrl, alt, shift, meta, composing, field: "composer"|"other"|"none", typed}
// chat:  {running, editing, modal, swipe: {position, count, generate}, hasUser, hasMessages}
export function hotkey(press, chat) {
  if (press.composing || chat.modal) return null;
  if (press.key === "Escape") {
    if (chat.running) return "stop";
    return chat.editing ? "cancel-edit" : null;
  }
  if (press.field === "other" || press.typed || chat.running) return null;
  const plain = !press.ctrl && !press.alt && !press.shift && !press.meta;
  const { position, count, generate } = chat.swipe;
  if (plain && press.key === "ArrowLeft") return count > 0 && position > 1 ? "swipe-prev" : null;
  if (plain && press.key === "ArrowRight") return count > 0 && (position < count || generate) ? "swipe-next" : null;
  if (press.key === "ArrowUp" && !press.alt && !press.shift && !press.meta) {
    if (press.ctrl) return chat.hasUser ? "edit-last-user" : null;
    return chat.hasMessages ? "edit-last" : null;
  }
  if (press.key === "Enter" && press.field === "composer") {
    if (press.ctrl && !press.alt && !press.shift) return chat.hasUser ? "regenerate" : null;
    if (press.alt && !press.ctrl && !press.shift) return chat.hasMessages ? "continue" : null;
  }
  return null;
}
