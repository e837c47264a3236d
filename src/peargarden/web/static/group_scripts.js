// The members' TavernHelper scripts on a group chat's page (issue 45): script_frames.js runs them as
// it runs a card's, from /api/groups/<group>/chats/<chat>/scripts (app/play/group_page_scripts.py).
// What differs is here: each script names its card (its calls are checked against that card, its
// modules asked for that card), and each frame reads the group chat's data with its own card's part
// laid over it (its character variables and scripts) and with the current character SillyTavern has
// then — nobody between rounds, the speaker during that speaker's events.
import { t } from "./i18n.js";
import { scriptNote } from "./script_panel.js";

export const isGroupBase = (base) => base.startsWith("/api/groups/");

// A script's name in its panel's head: a group's are prefixed with their member's card (two members'
// cards made from one template have scripts of the same names).
export const scriptTitle = (script) => (script.card ? `${script.card} · ${script.name}` : script.name);

// A script's key among the page's frames: two members' cards made from one template share script ids.
export const scriptKey = (script) => (script.card ? `${script.card}\u0000${script.id}` : script.id);

// The data *script*'s frame reads: a card chat's as it is; a group chat's with the script's card's own
// part (`members[card]`) and the speaker of the event being heard (`speaker`, from the event's view).
export function frameWorld(script, world) {
  if (!world || !world.members) return world;
  const { members, speaker, ...shared } = world;
  const own = members[script.card] || {};
  const out = { ...shared, ...own };
  if (speaker) {
    out.names = { ...(shared.names || {}), char: speaker.name };
    out.character_id = speaker.id;
  }
  return out;
}

// The members whose scripts wait for the player's answer (never asked, or a "no"): one line each.
export function noteWaiting(loaded) {
  for (const member of loaded.members || []) {
    if (member.allowed === true || !member.count) continue;
    scriptNote({ id: 0 }, t(`成员「${member.name}」`, `member "${member.name}"`), "blocked",
      t(`此卡有 ${member.count} 个脚本，还没有允许运行（在卡片的设置里允许）`,
        `its card has ${member.count} scripts, not allowed to run yet (allow them in the card's settings)`));
  }
}
