// A beat's tavern events up to its request, heard by the card's scripts BEFORE the request is sent
// (issue 45), as SillyTavern emits them: the beat's stream brings a "script_events" item and the
// server waits (app/play/live_events.py).  Each event goes to the frames one after another, each
// listener awaited, with the chat as a listener reads it then; the arguments a frame's listeners
// changed go on to the next frame (SillyTavern hands every listener the same object):
// chat_completion_prompt_ready's `chat` becomes chat_completion_settings_ready's `messages`, as in
// SillyTavern's request.  What the listeners left goes back to the server, which sends the request
// with it.  Bounded: a listener still busy when the server's wait is nearly over is named in the
// script panel and the rest of the events are not heard; the request goes out without changes.
import { api } from "./common.js";
import { emitHeard, showWorld, viewOf } from "./script_frames.js";

const MARGIN_MS = 400;  // the answer's way back, within the server's wait

export async function hearBeat(base, item) {
  const until = performance.now() + Math.max(0, Number(item.wait_ms) - MARGIN_MS);
  let chat = null;
  let settings = null;
  let late = null;
  let shown = null;
  for (const [type, given, view] of item.events || []) {
    let args = given;
    if (type === "chat_completion_settings_ready" && chat && args[0]) args = [{ ...args[0], messages: chat }];
    const now = viewOf(item.world, view);
    if (now !== shown) { showWorld(now, false); shown = now; }
    const heard = await emitHeard(type, args, until - performance.now());
    if (heard.slow) { late = type; break; }
    const data = heard.args[0];
    if (type === "chat_completion_prompt_ready" && data && Array.isArray(data.chat)) chat = data.chat;
    if (type === "chat_completion_settings_ready" && data && typeof data === "object") settings = data;
  }
  showWorld(item.world, true);
  // A 404 here: the server stopped waiting (and said so among the beat's warnings).
  await api(`${base}/scripts/live`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: item.token, chat, settings, late }),
  }).catch(() => undefined);
}
