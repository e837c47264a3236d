"""STscript's host over SillyTavern's state: what ``/send``, ``/gen``, ``/setvar`` … do to a chat,
exactly as SillyTavern 1.18 does it (the message objects it builds, the requests it sends).

Used by ``pear slash replay`` (the recorded cases) and by the tavern replay's slash steps.  Pure:
the model's replies come from a function, requests and toasts are recorded on the host.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from msgspec.structs import replace

from peargarden.stscript.quickreplies import QuickReplyLibrary
from peargarden.stscript.values import stringify
from peargarden.text.macro_dispatch import expand
from peargarden.text.macros import DynamicMacro
from peargarden.text.regex_scripts import Placement

from .assemble import Generation, generate
from .replay import assistant_message
from .request import request_body
from .state import TavernState

_BIAS = re.compile(r"""\{\{bias\s+(?:"([^"]*)"|'([^']*)')\s*\}\}""")
_MACRO = re.compile(r"\{\{[\s\S]*?\}\}")
_MANUAL = {"api": "manual", "model": "slash command"}


def message_bias(text: str) -> str:
    """SillyTavern's ``extractMessageBias``: the ``{{bias "…"}}`` parts, or ``""``."""
    parts = [m.group(1) if m.group(1) is not None else m.group(2) for m in _BIAS.finditer(text)]
    return " " + " ".join(parts) if parts else ""


def _only_bias(text: str, bias: str) -> Any:
    """``bias && !removeMacros(text).length``: the bias itself when empty (JavaScript's ``&&``)."""
    if not bias:
        return bias
    return not _MACRO.sub("", text).strip()


class TavernSlashHost:
    """A chat in SillyTavern's state, for STscript."""

    def __init__(
        self,
        state: TavernState,
        *,
        reply: Callable[[int], str] | None = None,
        random: Callable[[], float] | None = None,
        quick_replies: QuickReplyLibrary | None = None,
    ) -> None:
        self.state = state
        self.reply = reply or (lambda n: f"ORACLE_REPLY #{n}")
        self.random = random or state.random
        self.requests: list[dict[str, Any]] = []
        self.toasts: list[dict[str, str]] = []
        self.input_text = ""
        self.library = quick_replies or QuickReplyLibrary()
        self.warnings: list[str] = []
        self._cached: Generation | None = None

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

    def deliver(self, how: str, value: Any, as_text: Callable[[], str]) -> Any:
        """SillyTavern's return helper: ``object`` gives JSON, the rest show the text and give ``""``."""
        if how in ("pipe", "object"):
            return stringify(value) or ""
        if how.startswith("toast"):
            self.toast("info", as_text())
        return ""

    # -- the chat ----------------------------------------------------------------------------------

    def messages(self) -> list[dict[str, Any]]:
        return self.state.chat

    def _insert(self, message: dict[str, Any], at: int | None) -> None:
        self._changed()
        if at is not None and 0 <= at <= len(self.state.chat):
            self.state.chat.insert(at, message)
        else:
            self.state.chat.append(message)

    def post(self, kind: str, text: str, *, at: int | None, compact: bool, name: str | None = None) -> None:
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
            return
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
            if speaker != self.state.char_name:
                message["force_avatar"] = "img/ai4.png"
                message["original_avatar"] = "img/ai4.png"
        elif kind == "narrator":
            name = str(self.state.chat_metadata.get("narrator_name") or "System")
            extra = {"type": "narrator", "bias": (bias.strip() and bias) or None, "isSmallSys": compact, **_MANUAL}
            message = {
                "name": name,
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

    def add_swipe(self, text: str, *, switch: bool) -> int:
        self._changed()
        last = self.state.chat[-1]
        if not isinstance(last.get("swipes"), list):
            last["swipes"] = [last.get("mes", "")]
            last["swipe_info"] = [{}]
            last["swipe_id"] = 0
        last["swipes"].append(text)
        last.setdefault("swipe_info", []).append({"extra": {"bias": message_bias(text), **_MANUAL}})
        new_id = len(last["swipes"]) - 1
        if switch:
            last["swipe_id"] = new_id
            last["mes"] = text
        return new_id

    # -- the model ---------------------------------------------------------------------------------

    def _send(self, messages: list[dict[str, Any]], gen_type: str, stop: list[str] | tuple[str, ...] = ()) -> str:
        self._changed()  # a generation rewrites the greeting's macros and may add a reply
        body = request_body(
            self.state.oai, messages, gen_type, stop=stop, omit_empty_bias=self.state.compat.omit_empty_logit_bias
        )
        self.requests.append(body)
        return self.reply(len(self.requests))

    def generate_quiet(self, prompt: str, **options: Any) -> str:
        assembly = generate(self.state, "quiet", quiet_prompt=prompt)
        self.warnings.extend(assembly.warnings)
        text = self._send(assembly.messages, "quiet", assembly.stop)
        return text.strip() if options.get("trim", True) else text

    def generate_raw(self, prompt: str, *, system: str = "", prefill: str = "", **options: Any) -> str:
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": prompt})
        if prefill:
            messages.append({"role": "assistant", "content": prefill})
        text = self._send(messages, "quiet")
        return text.strip() if options.get("trim", True) else text

    def generate(self, kind: str, text: str, *, wait: bool) -> None:
        chat = self.state.chat
        if kind == "regenerate" and chat and not chat[-1].get("is_user"):
            chat.pop()
        assembly = generate(self.state, "normal" if kind == "regenerate" else kind)
        self.warnings.extend(assembly.warnings)
        reply = self._send(assembly.messages, kind, assembly.stop)
        if kind == "impersonate":
            self.input_text = reply
        elif kind == "swipe" and chat:
            last = chat[-1]
            last.setdefault("swipes", [last.get("mes", "")]).append(reply)
            last["swipe_id"] = len(last["swipes"]) - 1
            last["mes"] = reply
        elif kind == "continue" and chat:
            chat[-1]["mes"] = str(chat[-1].get("mes", "")) + reply
        else:
            chat.append(assistant_message(self.state, reply))

    # -- Quick Replies -----------------------------------------------------------------------------

    def quick_replies(self) -> QuickReplyLibrary:
        return self.library

    def save_quick_reply_set(self, name: str, *, deleted: bool = False) -> None:
        """Nothing to write in a replay: the library lives as long as the host."""

    def save_quick_reply_links(self, where: str) -> None:
        """Nothing to write in a replay."""


__all__ = ["TavernSlashHost", "message_bias"]
