"""STscript's host over SillyTavern's state: what ``/send``, ``/gen``, ``/setvar`` … do to a chat,
exactly as SillyTavern 1.18 does it (the message objects it builds, the requests it sends).

Used by ``pear slash replay`` (the recorded cases) and by the tavern replay's slash steps.  Pure:
the model's replies come from a function, requests and toasts are recorded on the host.
"""

from __future__ import annotations

import copy
import re
import time
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from msgspec.structs import replace

from peargarden.stscript.quickreplies import QuickReplyLibrary
from peargarden.text.jsstring import js_trim, js_trim_start
from peargarden.text.macro_dispatch import expand
from peargarden.text.macros import DynamicMacro
from peargarden.text.regex_scripts import Placement

from . import defaults as d
from .assemble import Generation, generate
from .chat_messages import add_swipe, assistant_message, message_bias, remove_macros
from .request import request_body
from .state import TavernState

_INJECT_POSITIONS = {"before": d.BEFORE_PROMPT, "after": d.IN_PROMPT, "chat": d.IN_CHAT, "none": d.NONE}
_MANUAL = {"api": "manual", "model": "slash command"}
_MAX_STOP_STRINGS = 4  # openai_max_stop_strings


def _only_bias(text: str, bias: str) -> Any:
    """``bias && !removeMacros(text).length``: the bias itself when empty (JavaScript's ``&&``)."""
    if not bias:
        return bias
    return not remove_macros(text)


def _folded(text: str) -> str:
    """``normalize('NFD')``, combining accents (U+0300–U+036F) dropped, lower case."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f").lower()


def find_char(characters: list[dict[str, Any]], name: str, current_avatar: str) -> dict[str, Any] | None:
    """SillyTavern's ``findChar({name})``: among the open character, one whose avatar key or name
    (case and accents ignored) matches; then any character by avatar key (``name`` or ``name.png``);
    then by name."""

    def matches(char: dict[str, Any]) -> bool:
        if not name or char.get("avatar") == name:
            return True
        own = str(char.get("name") or "")
        return (own == name) if not own else _folded(own) == _folded(name)

    current = [c for c in characters if c.get("avatar") == current_avatar]
    found = next((c for c in current if matches(c)), None)
    if found is not None:
        return found
    if name:
        by_avatar = next(
            (
                c
                for c in characters
                if c.get("avatar") == name or (not name.endswith(".png") and c.get("avatar") == f"{name}.png")
            ),
            None,
        )
        if by_avatar is not None:
            return by_avatar
    return next((c for c in characters if matches(c)), None)


class TavernSlashHost:
    """A chat in SillyTavern's state, for STscript."""

    def __init__(
        self,
        state: TavernState,
        *,
        reply: Callable[[int], str] | None = None,
        random: Callable[[], float] | None = None,
        quick_replies: QuickReplyLibrary | None = None,
        on_generate: Callable[[str, str], None] | None = None,
    ) -> None:
        self.state = state
        self.reply = reply or (lambda n: f"ORACLE_REPLY #{n}")
        self.random = random or state.random
        self.requests: list[dict[str, Any]] = []
        self.toasts: list[dict[str, str]] = []
        self.input_text = ""
        self.popups: list[str] = []  # the texts of dialogs a script opened
        # A replay starts as SillyTavern 1.18's first start left its data folder: the Default set on.
        self.library = quick_replies if quick_replies is not None else QuickReplyLibrary.first_start()
        self.warnings: list[str] = []
        # A replay that plays generations itself (its own numbering, a group's round) takes them here.
        self.on_generate = on_generate
        self._cached: Generation | None = None
        self.ephemeral: list[str] = []  # /inject ephemeral=true: removed after the next generation
        self._sendas_warned = False

    # -- the runtime's needs -----------------------------------------------------------------------

    def _generation(self) -> Generation:
        """The macro context of the chat as it is now: built once and kept until a command changes
        the chat (variables are read live from the state's own dicts)."""
        if self._cached is None:
            gen = Generation(self.state, "normal", dry_run=True)
            _, gen.card_fields = gen.card_macro_fields()
            self._cached = gen
        return self._cached

    def _changed(self) -> None:
        self._cached = None

    def refresh(self) -> None:
        """The chat was changed from outside (a TavernHelper script): read it again."""
        self._changed()

    @property
    def macro_engine(self) -> str:
        return "new" if self.state.compat.new_macro_engine else "legacy"

    def expand(self, text: str, dynamic: Mapping[str, DynamicMacro]) -> str:
        if not text:
            return ""
        gen = self._generation()
        env = gen.env()
        if dynamic:
            env = replace(env, dynamic=dynamic)
        return expand(text, env, engine=gen.engine)

    def toast(self, kind: str, message: str, title: str = "") -> None:
        self.toasts.append({"type": kind, "title": title, "message": message})

    def console_warn(self, message: str) -> None:
        """What SillyTavern writes only to the browser's console: kept as a warning, never a toast."""
        self.warnings.append(message)

    def variable_store(self, scope: str) -> dict[str, Any]:
        if scope == "local":
            store = self.state.chat_metadata.get("variables")
            if not isinstance(store, dict):
                store = self.state.chat_metadata["variables"] = {}
            return store
        settings = self.state.extension_settings.get("variables")
        if not isinstance(settings, dict):
            settings = self.state.extension_settings["variables"] = {}
        found = settings.get("global")
        if not isinstance(found, dict):
            found = settings["global"] = {}
        return found

    def sleep(self, seconds: float) -> None:
        time.sleep(min(seconds, 0.05))  # a replay does not wait out a script's delays

    @property
    def chat_name(self) -> str:
        return str(self.state.chat_metadata.get("main_chat") or self.state.card.get("chat") or "")

    @property
    def char_name(self) -> str:
        return self.state.char_name

    @property
    def user_name(self) -> str:
        return self.state.user_name

    def system_message(self, markup: str) -> dict[str, Any]:
        """``sendSystemMessage('generic', html)``: a hidden "SillyTavern System" message (``return=chat-*``)."""
        message: dict[str, Any] = {
            "name": "SillyTavern System",
            "force_avatar": "img/five.png",
            "is_user": False,
            "is_system": True,
            "extra": {"swipeable": False, "type": "generic"},
            "mes": markup,
        }
        self._insert(message, None)
        return message

    # -- characters --------------------------------------------------------------------------------

    @property
    def current_avatar(self) -> str:
        return self.state.avatar

    def characters(self) -> list[dict[str, Any]]:
        """The characters a name can find (``{"name", "avatar"}``): in a replay, the open card."""
        return [{"name": self.state.char_name, "avatar": self.state.avatar}]

    def find_character(self, name: str) -> dict[str, Any] | None:
        """SillyTavern's ``findChar``: the open character first, then an avatar key, then a name
        (case and accents ignored)."""
        return find_char(self.characters(), name, self.current_avatar)

    def nameless_sendas_warning(self) -> None:
        """``/sendas`` without ``name=``: SillyTavern warns once per browser profile."""
        if not self._sendas_warned:
            self._sendas_warned = True
            self.toast(
                "warning", 'To avoid confusion, please use /sendas name="Character Name"', "Name defaulted to {{char}}"
            )

    # -- asking the person: nobody answers a replay --------------------------------------------------

    def popup(self, text: str, *, ok: str, cancel: Any) -> bool:
        self.popups.append(text)
        return False

    def prompt_input(self, text: str, default: str) -> str | None:
        self.popups.append(text)
        return default

    def choose(self, text: str, labels: list[str], *, multiple: bool) -> str | None:
        self.popups.append(text)
        return None

    def count_tokens(self, text: str) -> int:
        return self._generation().counter(text)

    # -- the chat ----------------------------------------------------------------------------------

    def messages(self) -> list[dict[str, Any]]:
        return self.state.chat

    def _insert(self, message: dict[str, Any], at: int | None) -> None:
        self._changed()
        if at is not None and 0 <= at <= len(self.state.chat):
            self.state.chat.insert(at, message)
        else:
            self.state.chat.append(message)

    def post(
        self,
        kind: str,
        text: str,
        *,
        at: int | None,
        compact: bool,
        name: str | None = None,
        avatar: tuple[str | None, str | None] | None = None,
    ) -> dict[str, Any]:
        """A message as ``/send`` (``user``), ``/sendas`` (``character``, with the forced avatar and
        original avatar it shows), ``/sys`` (``narrator``) or ``/comment`` builds it; returned."""
        gen = self._generation()
        bias = message_bias(text)
        if kind == "user":
            text = gen.regexed(text, Placement.USER_INPUT)
            message: dict[str, Any] = {
                "name": name if name is not None else self.state.user_name,
                "is_user": True,
                "is_system": False,
                "mes": gen.sub(text),
                "extra": {"isSmallSys": compact},
                "force_avatar": f"/thumbnail?type=persona&file={self.state.user_avatar}",
            }
            if bias:
                message["extra"]["bias"] = bias
            self._insert(message, at)
            return message
        if kind == "character":
            speaker = name or self.state.char_name
            regexed = gen.regexed(text, Placement.SLASH_COMMAND)
            extra = {"bias": (bias.strip() and bias) or None, "isSmallSys": compact, **_MANUAL}
            message = {
                "name": speaker,
                "is_user": False,
                "is_system": _only_bias(regexed, bias),
                "mes": gen.sub(regexed),
                "extra": extra,
            }
            force_avatar, original = avatar if avatar is not None else (None, None)
            if force_avatar is not None:
                message["force_avatar"] = force_avatar
            if original is not None:
                message["original_avatar"] = original
        elif kind == "narrator":
            speaker = name if name is not None else str(self.state.chat_metadata.get("narrator_name") or "System")
            extra = {"type": "narrator", "bias": (bias.strip() and bias) or None, "isSmallSys": compact, **_MANUAL}
            message = {
                "name": speaker,
                "is_user": False,
                "is_system": _only_bias(text, bias),
                "mes": gen.sub(text.strip()),
                "force_avatar": "img/five.png",
                "extra": extra,
            }
        else:  # a comment: shown, never sent
            extra = {"type": "comment", "isSmallSys": compact, **_MANUAL}
            message = {
                "name": "Note",
                "is_user": False,
                "is_system": True,
                "mes": gen.sub(text.strip()),
                "force_avatar": "img/quill.png",
                "extra": extra,
            }
        message["swipe_id"] = 0
        message["swipes"] = [message["mes"]]
        message["swipe_info"] = [{"extra": dict(extra)}]
        self._insert(message, at)
        return message

    def hide_messages(self, indices: list[int], *, hidden: bool) -> None:
        for index in indices:
            self.hide(index, index, hidden=hidden)

    def hide(self, start: int, end: int, *, hidden: bool) -> None:
        self._changed()
        for index in range(start, end + 1):
            self.state.chat[index]["is_system"] = hidden

    def remove(self, indices: list[int]) -> None:
        self._changed()
        for index in sorted(indices, reverse=True):
            del self.state.chat[index]

    def set_input(self, text: str) -> None:
        self.input_text = text

    def send_input(self) -> None:
        """The send button: the input box's text as the user's message, then the reply."""
        text = js_trim(self.input_text)
        self.set_input("")
        if text:
            self.post("user", text, at=None, compact=False)
        self.generate("normal", "", wait=True)

    def add_swipe(self, text: str, *, switch: bool) -> int:
        self._changed()
        chat = self.state.chat
        last = chat[-1]
        if not isinstance(last.get("swipes"), list):
            last["swipes"] = [last.get("mes", "")]
            last["swipe_info"] = [{}]
            last["swipe_id"] = 0
        if not isinstance(last.get("swipe_info"), list):
            last["swipe_info"] = [{} for _ in last["swipes"]]
        last["swipes"].append(text)
        last["swipe_info"].append({"extra": {"bias": message_bias(text), **_MANUAL}})
        new_id = len(last["swipes"]) - 1
        if switch:
            self._sync_swipe(last)
            last["swipe_id"] = new_id
            last["mes"] = text
            # The message takes the new swipe's extra (a copy), as SillyTavern's switch does.
            last["extra"] = copy.deepcopy(last["swipe_info"][new_id].get("extra") or last.get("extra") or {})
        return new_id

    def _sync_swipe(self, message: dict[str, Any]) -> None:
        """``syncMesToSwipe``: the shown swipe keeps the message's text and extra before leaving it."""
        current = message.get("swipe_id")
        swipes, infos = message.get("swipes"), message.get("swipe_info")
        if not isinstance(current, int) or not isinstance(swipes, list) or not isinstance(infos, list):
            return
        if not 0 <= current < len(swipes) or not isinstance(swipes[current], str) or current >= len(infos):
            return
        info = infos[current]
        if not isinstance(info, dict):
            return
        if self.state.chat_metadata.get("tainted") or len(self.state.chat) > 1:
            swipes[current] = message.get("mes", "")
        if "extra" in message:
            info["extra"] = copy.deepcopy(message["extra"])
        else:
            info.pop("extra", None)

    # -- the model ---------------------------------------------------------------------------------

    def _send(
        self,
        messages: list[dict[str, Any]],
        gen_type: str,
        stop: list[str] | tuple[str, ...] = (),
        length: int = 0,
    ) -> str:
        self._changed()  # a generation rewrites the greeting's macros and may add a reply
        body = request_body(
            self._oai(length), messages, gen_type, stop=stop, omit_empty_bias=self.state.compat.omit_empty_logit_bias
        )
        self.requests.append(body)
        answer = self.reply(len(self.requests))
        self._generated()
        return answer

    def _oai(self, length: int) -> dict[str, Any]:
        """The connection settings, with ``length=`` of ``/gen`` and ``/genraw`` as the reply length."""
        if length > 0:
            return {**self.state.oai, "openai_max_tokens": length}
        return self.state.oai

    def clean_reply(self, text: str, *, trim_names: bool = True) -> str:
        """SillyTavern's ``cleanUpMessage`` for a chat-completion reply: ``Name:`` at a line start
        dropped (unless names are shown), the character's name before the text when ``trim_names``,
        spaces trimmed."""
        name = self.state.char_name
        if name and not self.state.power_user.get("allow_name2_display"):
            text = re.sub(rf"(^|\n){re.escape(name)}:\s*", r"\1", text)
            if trim_names and text.startswith(f"{name}:"):
                text = js_trim_start(text.replace(f"{name}:", "", 1))
        return js_trim(text) if self.state.power_user.get("trim_spaces", True) else text

    def _generated(self) -> None:
        """After a generation: ``/inject ephemeral=true`` injections are gone, as SillyTavern removes
        them when the generation ends."""
        gone, self.ephemeral = self.ephemeral, []
        for ident in gone:
            self.inject(ident, "", position="after", depth=4, scan=False, role="system", ephemeral=False)

    def generate_quiet(self, prompt: str, *, stop: list[str] | None = None, length: int = 0, **_: Any) -> str:
        """``generateQuietPrompt``: the chat's prompt with the instruction; the cleaned reply."""
        assembly = generate(self.state, "quiet", quiet_prompt=prompt)
        self.warnings.extend(assembly.warnings)
        stops = list(dict.fromkeys([*assembly.stop, *(stop or [])]))[:_MAX_STOP_STRINGS]
        return self.clean_reply(self._send(assembly.messages, "quiet", stops, length))

    def generate_raw(
        self,
        prompt: str,
        *,
        system: str = "",
        prefill: str = "",
        stop: list[str] | None = None,
        length: int = 0,
        trim: bool = True,
        **_: Any,
    ) -> str:
        """``generateRaw``: only the system prompt, the prompt and the prefill; the cleaned reply."""
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": prompt})
        if prefill:
            messages.append({"role": "assistant", "content": prefill})
        stops = list(dict.fromkeys(stop or []))[:_MAX_STOP_STRINGS]
        return self.clean_reply(self._send(messages, "quiet", stops, length), trim_names=trim)

    def generate(self, kind: str, text: str, *, wait: bool) -> None:
        if self.on_generate is not None:
            self._changed()
            self.on_generate(kind, text)
            self._generated()
            return
        chat = self.state.chat
        if kind == "regenerate" and chat and not chat[-1].get("is_user"):
            chat.pop()
        assembly = generate(self.state, "normal" if kind == "regenerate" else kind)
        self.warnings.extend(assembly.warnings)
        reply = self._send(assembly.messages, kind, assembly.stop)
        if kind == "impersonate":
            self.input_text = reply
        elif kind == "swipe" and chat:
            add_swipe(chat[-1], reply)
        elif kind == "continue" and chat:
            chat[-1]["mes"] = str(chat[-1].get("mes", "")) + reply
        else:
            chat.append(assistant_message(self.state, reply))

    # -- the prompt -------------------------------------------------------------------------------

    def inject(
        self,
        ident: str,
        text: str,
        *,
        position: str,
        depth: int | float,
        scan: bool,
        role: str,
        ephemeral: bool,
        filter: str | None = None,
    ) -> None:
        """``/inject``: kept in ``chat_metadata.script_injects`` (``filter`` is the closure's text,
        ``null`` without one) and in the extension prompt table.  The filter closure is kept, not
        run: the injection is always used."""
        where = _INJECT_POSITIONS[position]
        role_number = {"system": d.ROLE_SYSTEM, "user": d.ROLE_USER, "assistant": d.ROLE_ASSISTANT}[role]
        injects = self.state.chat_metadata.setdefault("script_injects", {})
        if text:
            injects[ident] = {
                "value": text,
                "position": where,
                "depth": depth,
                "scan": scan,
                "role": role_number,
                "filter": filter,
            }
        else:
            injects.pop(ident, None)
        self.state.table.set(d.SCRIPT_INJECT_PREFIX + ident, text, where, depth, scan, role_number)
        if ephemeral and text:
            self.ephemeral.append(ident)
        self._changed()

    def injections(self) -> dict[str, Any]:
        found = self.state.chat_metadata.get("script_injects")
        return dict(found) if isinstance(found, dict) else {}

    def flush_injections(self, ident: str | None) -> None:
        for name in [ident] if ident else list(self.injections()):
            if name is not None and name in self.injections():
                self.inject(name, "", position="after", depth=4, scan=False, role="system", ephemeral=False)

    def note_metadata(self) -> dict[str, Any]:
        """The chat's metadata with the Author's Note fields a loaded chat has (``note_prompt`` …)."""
        self.state.fill_note_metadata()
        return self.state.chat_metadata

    def set_note(self, field: str, value: Any) -> None:
        """One Author's Note field (``prompt``, ``depth``, ``interval``, ``role``) of the chat."""
        self.note_metadata()[f"note_{field}"] = value
        self._changed()

    # -- Quick Replies -----------------------------------------------------------------------------

    def quick_replies(self) -> QuickReplyLibrary:
        return self.library

    def save_quick_reply_set(self, name: str, *, deleted: bool = False) -> None:
        """Nothing to write in a replay: the library lives as long as the host."""

    def save_quick_reply_links(self, where: str) -> None:
        """Nothing to write in a replay."""


__all__ = ["TavernSlashHost", "find_char", "message_bias"]
