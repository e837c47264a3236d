"""A card's TavernHelper scripts in the chat page (issue 45): the host their calls run on, over the chat.

The page runs each enabled script of a card whose scripts the user allowed in a sandboxed frame of
its own (``web/static/script_frames.js``).  What a script reads at once it reads from a copy of the
chat's data the page hands it (:func:`page_world`, the same dicts TavernHelper reads); every call
that changes something, and every call TavernHelper answers with a promise, comes here
(:func:`run_calls`) and runs on :class:`PageScriptHost` through the one implementation of the API
(``scripting/api.py``) — the same semantics as ``pear script replay``.  The host is SillyTavern's
state of the chat as the next tavern beat would build it (``ChatSlashHost``: card, preset, books,
macros), and what a call changed is written back through the service like any edit of the chat (the
chat's lock, the vault, a new branch, so undo works):

* ``chat`` — a message's text: ``ChatSession.edit``; its variables (the shown swipe's):
  ``save_message_variables``; new messages: an insert; deleted ones: a deletion;
* ``chat_metadata`` / ``globals`` — saved as STscript saves them (the chat's metadata, the library's
  global variables);
* ``character`` — what TavernHelper keeps in the card (character variables, each script's ``data``,
  ``info`` and buttons): in the card's ``卡.json`` under ``tavern_helper_state``, laid over the card's
  own when the card is read here (the card file stays as imported);
* ``triggerSlash`` runs STscript on the chat itself; ``generate`` / ``generateRaw`` assemble the
  prompt as SillyTavern does and send it as a side request (nothing is written);
* world books — read; a script's change to a book the card plays (a library book mounted on it, its
  supplement book) is written to that book's file as the stage's lorebook tools write it (atomically,
  the same writer) and behind the same write gate (``creation_mode = "ask"``: only when the user's
  latest message asks to record); the card's embedded book, deleting a whole book and the preset are
  refused with one line.

Events the API emits while it runs (a message drawn again…) are handed back for the page to emit.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from peargarden.errors import PearError
from peargarden.modes.stage.materials import forget_corpus
from peargarden.modes.tavern.setup import injected_prompts
from peargarden.modes.tavern.sources import SUPPLEMENT_WORLD
from peargarden.scripting import card_settings
from peargarden.scripting.api import TavernHelperApi
from peargarden.scripting.host import ScriptError, SlashOutcome
from peargarden.scripting.page_source import rename_top
from peargarden.scripting.replay import enabled_scripts, plain
from peargarden.scripting.st_beat import hears_greeting
from peargarden.scripting.st_host import TavernScriptHost, slash_outcome, variables_left_absent
from peargarden.sessions.entries import COMMENT_TAG, GREETING_TAG, NARRATOR_TAG, Entry, tagged
from peargarden.sessions.variables import message_notes
from peargarden.stage.lore.book import dump_book
from peargarden.stage.lore.gate import check_write_gate
from peargarden.stscript.commands import default_registry
from peargarden.stscript.runtime import Interpreter, run_script
from peargarden.tavern.slash_host import TavernSlashHost
from peargarden.text.jsvalue import json_stringify
from peargarden.variables.jsvalues import from_json
from peargarden.variables.schema_script import script_body
from peargarden.workspace import atomic
from peargarden.workspace.config import load_settings
from peargarden.workspace.library import lorebook_path
from peargarden.workspace.script_allowance import scripts_allowance

from .page_frame_apis import frame_call
from .service import ChatSession
from .slash import ChatSlashHost, side_request

STATE_KEY = "tavern_helper_state"  # 卡.json: what the card's scripts wrote to the card
MAX_CALLS = 200  # calls in one request of the page


def _shown_variables(message: dict[str, Any]) -> str:
    tables = message.get("variables")
    found = message.get("swipe_id")
    swipe = found if isinstance(found, int) else 0
    table = tables[swipe] if isinstance(tables, list) and 0 <= swipe < len(tables) else None
    return json_stringify(table) or "null"


def _extra(message: dict[str, Any]) -> str:
    return json_stringify(message.get("extra")) or "null"


def _seen(message: dict[str, Any]) -> tuple[Any, str, Any, str, bool, str]:
    """What of a message the host writes back when a call changed it: its text, shown variables,
    shown swipe, extra, whether it is hidden, its swipes."""
    hidden = bool(message.get("is_system"))
    swipes = json_stringify(message.get("swipes")) or "null"
    return message.get("mes"), _shown_variables(message), message.get("swipe_id"), _extra(message), hidden, swipes


_SWIPE_KEYS = ("swipes", "swipe_id", "swipe_info", "variables")


def _swipe_state(message: dict[str, Any]) -> dict[str, Any]:
    """A message's swipes as SillyTavern holds them, for a note (``sessions/variables.py``)."""
    return plain({key: message[key] for key in _SWIPE_KEYS if key in message}) or {}


def _stored_extra(message: dict[str, Any], stored: dict[str, Any], note: dict[str, Any] | None) -> None:
    """SillyTavern's ``extra`` of *message*: what its entry keeps of it (a tavern beat's send or reply:
    ``user_fields``, ``BuiltRequest.reply``; the reply's reasoning is its own), under the tags' type;
    or, once a script set it (``setChatMessages``), the note's, in place of the rest."""
    set_by_script = note.get("extra") if note is not None else None
    if isinstance(set_by_script, dict):
        message["extra"] = copy.deepcopy(set_by_script)
        return
    kept = stored.get("extra")
    if not isinstance(kept, dict):
        return
    extra = {**copy.deepcopy(kept), **(message.get("extra") or {})}
    if stored.get("reasoning") and "reasoning" in kept:
        extra["reasoning"] = stored["reasoning"]
    message["extra"] = extra
    if "api" in kept and message.get("is_system") is False:
        del message["is_system"]  # a received reply: 1.18's saveReply leaves it out until it is hidden


def _drawn_info(entry: Entry) -> dict[str, Any]:
    """A swipe's ``swipe_info`` as drawing it leaves it: a received reply's dates (sent and finished
    when its entry was written) and a copy of its ``extra``; another message, a copy of its extra."""
    stored = entry.message
    kept = stored.get("extra")
    if not (isinstance(kept, dict) and "api" in kept):  # its extra: a narrator's or a comment's type
        kind = next((tag for tag in (NARRATOR_TAG, COMMENT_TAG) if tagged(stored, tag)), None)
        return {"extra": {} if kind is None else {"type": kind}}
    extra = copy.deepcopy(kept)
    if stored.get("reasoning"):
        extra["reasoning"] = stored["reasoning"]
    info: dict[str, Any] = {"send_date": entry.timestamp}
    if isinstance(stored.get("gen_started"), str):
        info["gen_started"] = stored["gen_started"]
    return {**info, "gen_finished": entry.timestamp, "extra": extra}


def _overlay(helper: dict[str, Any], saved: Any) -> None:
    """What the scripts wrote before, laid over the card's ``tavern_helper``."""
    if not isinstance(saved, dict):
        return
    if isinstance(saved.get("variables"), dict):
        helper["variables"] = saved["variables"]
    found = saved.get("scripts")
    scripts: dict[str, Any] = found if isinstance(found, dict) else {}
    for script in _all_scripts(helper.get("scripts")):
        kept = scripts.get(str(script.get("id")))
        if isinstance(kept, dict):
            script.update({key: kept[key] for key in ("data", "info", "button") if key in kept})
    card_settings.saved(helper)  # TavernHelper saved the card's field whole, in its own shape


def _all_scripts(items: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("type") == "folder":
            out.extend(_all_scripts(item.get("scripts")))
        elif isinstance(item, dict):
            out.append(item)
    return out


def _state_of(helper: dict[str, Any]) -> dict[str, Any]:
    scripts = {
        str(script.get("id")): {key: script[key] for key in ("data", "info", "button") if key in script}
        for script in _all_scripts(helper.get("scripts"))
    }
    return plain({"variables": helper.get("variables") or {}, "scripts": scripts}) or {}


class PageScriptHost(TavernScriptHost):
    """TavernHelper's host over a chat of the service (see the module's docstring)."""

    def __init__(self, session: ChatSession) -> None:
        self.session = session
        self.chat_host = ChatSlashHost(session)
        super().__init__(self.chat_host.state, reply=self._reply)
        self.events: list[list[Any]] = []
        self.parts: set[str] = set()
        self._adopted()

    # -- the state ---------------------------------------------------------------------------------

    def _adopted(self) -> None:
        """The chat host's state is this host's (again, after a change was written back)."""
        self.state = self.chat_host.state
        # The chat's lines are the tavern builder's, kept between beats (``StLines``) and never
        # written; the API changes messages in place: it gets its own (their ``extra`` is the only
        # value of a line that is not flat).
        self.state.chat = [{**line, "extra": dict(line.get("extra") or {})} for line in self.state.chat]
        self.slash = TavernSlashHost(self.state, reply=self._reply)
        self.slash.requests = self.requests
        helper = self.tavern_helper()
        if helper is not None:
            _overlay(helper, self.session.card.settings().get(STATE_KEY))
        self._shown_variables()
        self._swipes()
        self._before = [(message, _seen(message)) for message in self.state.chat]

    def _shown_variables(self) -> None:
        """The variables the page shows for a message that has none yet in SillyTavern's state (a new
        chat's greeting carries its ``[initvar]`` record before the first beat writes it); a message
        whose records a script emptied keeps them, ``[{}]``, as TavernHelper reads them back."""
        chat = self.state.chat
        for shown in self.session.variables().messages:
            message = chat[shown.index] if 0 <= shown.index < len(chat) else None
            if message is not None and not message.get("variables") and (shown.kept or any(shown.swipes)):
                message["variables"] = [copy.deepcopy(record) if record else {} for record in shown.swipes]

    def _swipes(self) -> None:
        """Each reply's swipes (its siblings in the chat) and which one is shown, as SillyTavern holds
        them (``swipes``, ``swipe_id``, ``swipe_info``) — the chat host's lines carry only the text.
        The greeting's swipe infos carry its date, as SillyTavern 1.18 opens a chat; the others an
        empty ``extra`` each, as drawing a message made by a script leaves them (a reply's dates and
        model are not kept here).  A message's ``extra`` a script set is its note's (``save_message_extra``)."""
        chat = self.state.chat
        numbers = self.chat_host._ids()
        rows = self.session.messages()
        tree = self.session.chat.tree
        notes = self._notes = message_notes(tree.path())
        for index, message in enumerate(chat):
            number = int(numbers[index]) if index < len(numbers) else -1
            entry = rows[number].entry_id if 0 <= number < len(rows) else None
            if entry is None:
                continue
            _stored_extra(message, tree.get(entry).message, notes.get(entry))
            if message.get("is_user"):
                continue
            kin = tree.siblings(entry)
            message["swipes"] = [str(other.message.get("content") or "") for other in kin]
            message["swipe_id"] = next(i for i, other in enumerate(kin) if other.id == entry)
            if index == 0 and tree.get(entry).parent_id is None:  # the greeting(s): the chat's opening date
                stamp = kin[0].timestamp  # (one date for them all, whichever is shown, as SillyTavern has it)
                message["send_date"] = stamp
                message["swipe_info"] = [{"send_date": stamp, "extra": {}} for _ in kin]
            elif not isinstance(message.get("swipe_info"), list):  # what drawing a message leaves on it
                message["swipe_info"] = [_drawn_info(other) for other in kin]
                message.update({key: value for key, value in message["swipe_info"][message["swipe_id"]].items()
                                if key != "extra"})  # fmt: skip
            kept = notes.get(entry, {}).get("swipes")
            if isinstance(kept, dict):  # swipes a script set, in place of the siblings (their text is the note's)
                message.update({key: copy.deepcopy(kept[key]) for key in _SWIPE_KEYS if key in kept})

    def _reply(self, number: int) -> str:
        return side_request(self.session, self.requests[number - 1])

    def inject(self, prompts: list[dict[str, Any]], *, once: bool) -> None:
        """Kept with the chat until its next beats (``modes/tavern/setup.injected_prompts``), and here."""
        injected_prompts(self.session.env).add(prompts, once=once)
        super().inject(prompts, once=once)

    def uninject(self, ids: list[str]) -> None:
        injected_prompts(self.session.env).remove(ids)
        super().uninject(ids)

    def set_global_variables(self, value: dict[str, Any]) -> None:
        """Replaced in the chat host's own table, the one it saves when the calls are done."""
        table = self.chat_host.globals
        given = dict(value)
        table.clear()
        table.update(given)
        super().set_global_variables(table)

    def changed(self, part: str) -> None:
        self.parts.add(part)

    def save_world(self, name: str, data: dict[str, Any]) -> None:
        path = self._book_file(name)
        verdict = check_write_gate("lorebook_update", self._user_words(), self.session.settings.creation_mode)
        if not verdict.allowed:
            gate = "写入闸门（creation_mode = ask）只在玩家这一轮要求记录时放行"
            raise ScriptError(f"脚本没有改写世界书「{name}」：{gate}")
        if not isinstance(data.get("entries"), dict):
            raise ScriptError(f"脚本给世界书「{name}」的内容没有 entries，没有写入")
        atomic.write_text(path, dump_book(data))
        forget_corpus()
        super().save_world(name, data)

    def _book_file(self, name: str) -> Path:
        """The file of the book *name* as this chat plays it: a library book mounted on the card, or
        its supplement book; anything else is refused."""
        folder = self.session.card
        if name == SUPPLEMENT_WORLD:
            return folder.supplement_book_file
        if name in folder.effective_settings(load_settings(folder.home.config_file)).lorebooks:
            return lorebook_path(folder.home, name)
        raise ScriptError(f"脚本不能改写世界书「{name}」：只能改写这张卡挂载的世界书（角色卡内嵌的那本不行）")

    def _user_words(self) -> str:
        """The player's latest message: what the write gate reads, as for the stage's tools."""
        for message in reversed(self.state.chat):
            if message.get("is_user"):
                return str(message.get("mes") or "")
        return ""

    def delete_world(self, name: str) -> bool:
        raise ScriptError(f"脚本不能删除世界书「{name}」：梨园里世界书只由玩家删除")

    def run_slash(self, text: str) -> SlashOutcome:
        """STscript on the chat itself (its ``/send``, ``/setvar``… are edits of the chat)."""
        with variables_left_absent(self.state):
            outcome = run_script(Interpreter(default_registry(), self.chat_host), text)
        self.chat_host.finish()
        self.chat_host._reread()
        self._adopted()
        return slash_outcome(outcome)

    # -- writing back ------------------------------------------------------------------------------

    def persist(self) -> None:
        """What the last call changed in the chat's messages and the card, written through the service.
        The chat's metadata and the global variables are kept in memory across a re-read (the chat
        host's) and written once, by :meth:`finish`: a script setting a variable in a loop adds one
        metadata entry to the chat per request of the page, not one per call."""
        parts, self.parts = self.parts, set()
        if "preset" in parts:
            raise ScriptError("脚本不能改写预设（预设变量只在预设编辑器里改）")
        if not parts & {"chat", "character"}:
            return
        if "chat" in parts:
            self._persist_chat()
        if "character" in parts:
            helper = self.tavern_helper() or {}
            settings = self.session.card.settings()
            settings[STATE_KEY] = _state_of(helper)
            self.session.card.write_settings(settings)
        self.chat_host._reread()
        self._adopted()

    def finish(self) -> None:
        """The chat's metadata and the global variables, saved when they changed."""
        self.chat_host.finish()

    def _persist_chat(self) -> None:
        chat = self.state.chat
        now = {id(message) for message in chat}
        gone = [index for index, (message, *_) in enumerate(self._before) if id(message) not in now]
        if gone:
            self.chat_host.remove(gone)
            return
        before = {id(message): seen for message, seen in self._before}
        new = [index for index, message in enumerate(chat) if id(message) not in before]
        if new:
            # New messages at the end are appended in order.  The others are written where they
            # stand, the last first: each goes before the message after it, which is written by then
            # (the chat host numbers the chat as written, so its state is read again first — the
            # calls changed it in place).  Written the other way, a message appended first and one
            # then put before it left the first as a branch of its own: a swipe of the next insert.
            self.chat_host._reread()
            tail = len(new)
            while tail and new[tail - 1] == len(chat) - len(new) + tail - 1:
                tail -= 1
            for index in new[tail:]:
                self.chat_host._insert(chat[index], None)
            for unwritten, index in reversed(list(enumerate(new[:tail]))):
                self.chat_host._insert(chat[index], index - unwritten)
        for index, message in enumerate(chat):
            if id(message) in before and _seen(message) == before[id(message)]:
                continue  # unchanged (a new chat's greeting, not written yet, has no number to ask for)
            number = self.chat_host._number(index)
            if id(message) not in before:  # a new message's variables (createChatMessages' data)
                shown = json.loads(_shown_variables(message))
                entry = self.session.messages()[number].entry_id
                if shown and entry is not None:
                    self.session.save_message_variables(entry, shown)
                continue
            text, variables, swipe, extra, hidden, swipes = before[id(message)]
            entry = self.session.messages()[number].entry_id
            kept = entry is not None and isinstance(self._notes.get(entry, {}).get("swipes"), dict)
            moved = message.get("swipe_id") != swipe or (json_stringify(message.get("swipes")) or "null") != swipes
            switched = moved and not kept and self._switched(index, number, message)
            if switched:
                text = message.get("mes")
            elif entry is not None and (moved or (kept and message.get("mes") != text)):
                # Swipes a script set, or another one shown on a message with later ones: the note's.
                shown = json.loads(_shown_variables(message)) or {}
                self.session.save_message_swipes(entry, _swipe_state(message), str(message.get("mes") or ""), shown)
                text, variables = message.get("mes"), _shown_variables(message)
            if message.get("mes") != text:
                self.session.edit(number, str(message.get("mes") or ""))
            entry = self.session.messages()[number].entry_id
            if entry is None:
                continue
            if _shown_variables(message) != variables:
                self.session.save_message_variables(entry, json.loads(_shown_variables(message)) or {})
            # A switch shows another entry: the extra SillyTavern gave the message (the swipe's info) is its.
            if (switched or _extra(message) != extra) and isinstance(message.get("extra"), dict):
                self.session.save_message_extra(entry, plain(message["extra"]) or {})
            if bool(message.get("is_system")) != hidden:  # setChatMessages' is_hidden: /hide, /unhide
                self.session.hide(number, number, hidden=not hidden)

    def _switched(self, index: int, number: int, message: dict[str, Any]) -> bool:
        """Another of the message's swipes shown (``setChatMessages`` with a ``swipe_id``): the chat moves
        to that sibling, as the page's own swipe arrows do.  Only the last message: an earlier one's
        swipes are branches here, each with its own later messages, which SillyTavern keeps.  ``False``
        for those, and when its swipes were changed too (then a note keeps them: ``save_message_swipes``)."""
        entry = self.session.messages()[number].entry_id
        kin = self.session.chat.tree.siblings(entry) if entry is not None else []
        swipe = message.get("swipe_id")
        texts = [str(other.message.get("content") or "") for other in kin]
        if not isinstance(swipe, int) or message.get("swipes") != texts or not 0 <= swipe < len(kin):
            return False
        if index != len(self.state.chat) - 1:
            return False
        self.session.goto(kin[swipe].id, deepest=True)
        return True

    # -- what the page's frames read ---------------------------------------------------------------

    def world(self) -> dict[str, Any]:
        """The copy a frame answers its reads from: SillyTavern's chat and metadata, the global
        variables, what TavernHelper keeps in the card, the names."""
        helper = self.tavern_helper() or {}
        scripts = [{key: script.get(key) for key in ("id", "name", "info", "data", "button")}
                   for script in _all_scripts(helper.get("scripts"))]  # fmt: skip
        return plain({
            "chat": self.state.chat,
            "chat_metadata": self.state.chat_metadata,
            "globals": self.global_variables(),
            "character": {"variables": helper.get("variables") or {}, "scripts": scripts},
            "names": {"user": self.user_name, "char": self.char_name},
            "character_id": self.character_id,
        }) or {}  # fmt: skip


def frame_code(content: str) -> str:
    """A TavernHelper script (an ES module) as the body of the async function its frame runs: its
    static imports and ``import(url)`` awaited through ``__pear_import`` (the frame's own modules, or a
    remote one from the page: ``remote_modules.py``), in the order written, ``export`` dropped, ``top``
    the frame's host."""
    return rename_top(script_body(content).replace("__pear.load(", "await __pear_import("))


def page_scripts(session: ChatSession) -> dict[str, Any]:
    """What the chat page runs: ``{"allowed", "count", "scripts": [{"id", "name", "code", "buttons"}],
    "world", "opening"}``; ``allowed`` is the user's answer for the card's scripts (``null``: never
    asked; none run), ``count`` how many are enabled in the card, ``opening`` the events a new chat's
    scripts hear once started (:func:`opening_events`)."""
    allowed = scripts_allowance(session.card)
    enabled = enabled_scripts({"data": copy.deepcopy(session.card.load_card().data)})
    if not (allowed and enabled):  # nothing runs: SillyTavern's state of the chat is not built
        return {"allowed": allowed, "count": len(enabled), "scripts": [], "world": {}, "opening": []}
    host = PageScriptHost(session)
    scripts = []
    for script in enabled:
        found = script.get("button")
        button: dict[str, Any] = found if isinstance(found, dict) else {}
        shown = [b.get("name") for b in button.get("buttons") or [] if isinstance(b, dict) and b.get("visible")]
        scripts.append({
            "id": str(script.get("id") or script.get("name")),
            "name": str(script.get("name") or ""),
            "code": frame_code(str(script.get("content") or "")),
            "buttons": [str(name) for name in shown] if button.get("enabled", True) else [],
        })  # fmt: skip
    world = host.world()
    return {"allowed": allowed, "count": len(enabled), "scripts": scripts, "world": world,
            "opening": opening_events(host)}  # fmt: skip


def opening_events(host: PageScriptHost) -> list[list[Any]]:
    """A new chat's events when its page opens it and starts the scripts, as ``[type, args, null]``
    (``page_events``' shape), when SillyTavern's scripts would hear them (``st_beat.hears_greeting``:
    only when opening the chat had a world book to load).  New: nothing but its greeting yet (a page
    opened again before the first beat hears them again; SillyTavern emits them once, at creation)."""
    said = host.session.messages()
    greeting = len(said) == 1 and GREETING_TAG in said[0].tags
    if len(host.state.chat) != 1 or not (greeting or not said) or not hears_greeting(host.state):
        return []
    return [["chat_created", [], None], ["message_received", [0, "first_message"], None],
            ["character_message_rendered", [0, "first_message"], None]]  # fmt: skip


def page_world(session: ChatSession) -> dict[str, Any]:
    """The copy of the chat's data the frames read, after a beat or an edit."""
    return PageScriptHost(session).world()


def run_calls(session: ChatSession, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The page's calls, in order, each ``{"script", "name", "args"}`` (a call naming a script the card
    does not run here is refused) or ``{"bar", "name", "args"}`` (a status bar's frame: refused unless
    the card's scripts are allowed): ``{"answers": [{"json"} | {"error"}], "events": [[event, args]],
    "world"}``."""
    host = PageScriptHost(session)
    allowed = scripts_allowance(session.card) is True
    enabled = enabled_scripts(copy.deepcopy(host.state.card)) if allowed else []
    scripts = {str(script.get("id") or script.get("name")) for script in enabled}
    api = TavernHelperApi(host, lambda event, args: host.events.append([event, args]))
    answers: list[dict[str, Any]] = []
    for call in calls[:MAX_CALLS]:
        script: str | None = str(call.get("script") or "")
        name = str(call.get("name") or "")
        args = from_json(call.get("args")) if isinstance(call.get("args"), list) else []
        try:
            if "bar" in call:  # a status bar's frame: TavernHelper's API as a script's, when scripts may run
                if not allowed:
                    raise ScriptError("状态栏只能读取：此卡的脚本没有允许运行")
                script = None  # a message's frame has no script of its own (no script variables, buttons)
            elif script not in scripts:
                raise ScriptError(f"这个聊天没有运行脚本 {script}")
            value = frame_call(api, session.card, name, list(args), script)
            host.persist()
        except ScriptError as error:
            answers.append({"error": str(error)})
            host.parts.clear()
            continue
        except PearError as error:
            answers.append({"error": error.message})
            host.parts.clear()
            continue
        except Exception as error:  # a bug of ours: the script gets one line, the page goes on
            answers.append({"error": f"{name} 内部错误（{type(error).__name__}: {error}）"})
            host.parts.clear()
            continue
        text = json_stringify(value)
        answers.append({} if text is None else {"json": text})
    answers.extend({"error": "一次调用太多（超过 200 个）"} for _ in calls[MAX_CALLS:])
    host.finish()
    return {"answers": answers, "events": plain(host.events) or [], "world": host.world()}


__all__ = ["STATE_KEY", "PageScriptHost", "frame_code", "opening_events", "page_scripts", "page_world", "run_calls"]
