"""STscript on a real chat (``pear slash --chat``, the page's chat bar, Quick Replies).

The script reads the chat as SillyTavern would hold it — the state the next tavern beat would build
(card, preset, books, macros, regex scripts) — and every change it makes goes through the chat's
service as any edit does (the chat's lock, the vault, a new branch for an insert or a delete, so undo
works): messages posted with ``/send`` ``/sendas`` ``/sys`` ``/comment``, hides, deletes, swipes and
beats.  After each change the state is read again from the chat.  Chat variables are the chat's
``chat_metadata.variables`` (the ones MVU cards and TavernHelper read), saved with the chat when the
script ends; global variables live in ``library/variables.json``; Quick Reply sets in
``library/quick-replies/``.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from peargarden.agent.events import AgentEvent, ErrorEvent, TextDeltaEvent, TextRetractEvent, WarningEvent
from peargarden.agent.loop import BeatInput
from peargarden.errors import BadInput, ProviderError
from peargarden.modes.tavern.setup import chat_tavern_state
from peargarden.providers.base import ChatRequest, stream_text, take_back
from peargarden.sessions.entries import COMMENT_TAG, HIDDEN_TAG, NARRATOR_TAG
from peargarden.sessions.variables import customs_as_data
from peargarden.stscript.commands import default_registry
from peargarden.stscript.quickreplies import QuickReplyLibrary, QuickReplySet
from peargarden.stscript.runtime import GenerationError, Interpreter, run_script
from peargarden.tavern.request import request_body
from peargarden.tavern.slash_host import TavernSlashHost
from peargarden.tavern.state import TavernState
from peargarden.workspace.home import Home
from peargarden.workspace.quick_reply_files import (
    delete_set,
    load_library,
    read_global_variables,
    save_links,
    save_set,
    write_global_variables,
)

from .chat_records import find_chat
from .service import ChatOptions, ChatSession, PearApp

# The body fields a side request keeps (the tavern builder's sampler fields).
_SAMPLER = ("temperature", "max_tokens", "presence_penalty", "frequency_penalty", "top_p", "top_k", "stop", "seed")


def side_request(session: ChatSession, body: dict[str, Any], cancel: threading.Event | None = None) -> str:
    """A request body built as SillyTavern builds it, sent to the chat's model as a side request (not a
    beat: nothing is written); the reply's text."""
    sampler = {key: body[key] for key in _SAMPLER if body.get(key) is not None}
    sampler["stream"] = False
    request = ChatRequest(messages=list(body.get("messages") or []), sampler=sampler)
    # The text a guard took back after it went out is not part of the reply (issue 49, item 3).
    return stream_text(session.provider.stream(request, cancel or threading.Event()))


class Asker:
    """How a script asks the person: the page answers; by default nobody does (a popup is only
    recorded, ``/input`` gives its default, ``/buttons`` nothing)."""

    def popup(self, text: str) -> bool:
        return False

    def text(self, prompt: str, default: str) -> str | None:
        return default

    def choose(self, prompt: str, labels: list[str]) -> str | None:
        return None


class SlashOutcome(msgspec.Struct):
    """What a script run ends with, for a front: SillyTavern's result object (or the error thrown),
    the toasts to show, the input box, and what SillyTavern would only have logged."""

    result: dict[str, Any] | None
    thrown: dict[str, str] | None
    toasts: list[dict[str, str]]
    input_text: str | None  # the input box after, when a command wrote it
    warnings: list[str]
    popups: list[str]
    changed: bool  # the chat changed (a front redraws it)


def _tavern_state(session: ChatSession) -> TavernState:
    view = session.branch_view()
    history = session.context()
    inp = BeatInput(history, "", session.env.thinking, [], 0, "none", "send", customs_as_data(view.tree.customs()))
    state, _ = chat_tavern_state(session.env, inp)
    return state


def _entry_message(message: dict[str, Any]) -> dict[str, Any]:
    """A SillyTavern message as the chat's entry holds it."""
    tags: list[str] = []
    kind = (message.get("extra") or {}).get("type")
    if kind in (NARRATOR_TAG, COMMENT_TAG):
        tags.append(str(kind))
    if message.get("is_system") is True:
        tags.append(HIDDEN_TAG)
    out: dict[str, Any] = {
        "role": "user" if message.get("is_user") else "assistant",
        "content": str(message.get("mes", "")),
        "name": str(message.get("name", "")),
    }
    if tags:
        out["tags"] = tags
    return out


class ChatSlashHost(TavernSlashHost):
    """STscript's host over a chat of the service (see the module's docstring)."""

    def __init__(self, session: ChatSession, *, asker: Asker | None = None, input_text: str = "") -> None:
        self.session = session
        self.home = session.app.home
        self.asker = asker or Asker()
        self.globals = read_global_variables(self.home)
        state = _tavern_state(session)
        self.metadata: dict[str, Any] = state.chat_metadata
        self._start_metadata = copy.deepcopy(self.metadata)
        self._start_globals = copy.deepcopy(self.globals)
        self._adopt(state)
        super().__init__(state, quick_replies=load_library(self.home))
        self.input_text = input_text
        self.input_written = False
        self.changed = False
        self._saved_sets: set[str] = set()
        self.library.chat_sets = self._chat_links()

    # -- the state follows the chat ----------------------------------------------------------------

    def _adopt(self, state: TavernState) -> None:
        """The script's own view of the metadata and the global variables carries over a re-read."""
        state.chat_metadata = self.metadata
        state.extension_settings.setdefault("variables", {})["global"] = self.globals

    def _reread(self) -> None:
        state = _tavern_state(self.session)
        self._adopt(state)
        self.state = state
        self._changed()
        self.changed = True

    def _ids(self) -> list[str]:
        """The chat's message number for each of SillyTavern's messages (its lines skip tool
        messages and empty ones)."""
        numbers = {entry.entry_id: index for index, entry in enumerate(self.session.messages())}
        lines = [
            m for m in self.session.context() if m.role in ("user", "assistant") and m.content.strip() and m.entry_id
        ]
        greeting_missing = len(self.state.chat) > len(lines)  # a new chat: the greeting is not written yet
        ids = [str(numbers.get(m.entry_id, -1)) for m in lines]
        return ["-1", *ids] if greeting_missing else ids

    def _number(self, index: int) -> int:
        ids = self._ids()
        if not 0 <= index < len(ids) or ids[index] == "-1":
            raise BadInput(f"没有第 {index} 条消息")
        return int(ids[index])

    # -- writes through the service -----------------------------------------------------------------

    def _insert(self, message: dict[str, Any], at: int | None) -> None:
        position = None
        if at is not None and at < len(self.state.chat):
            position = self._number(at)
        self.session.insert_message(_entry_message(message), position)
        self._reread()

    def hide(self, start: int, end: int, *, hidden: bool) -> None:
        numbers = [self._number(i) for i in range(start, end + 1)]
        self.session.hide(min(numbers), max(numbers), hidden=hidden)
        self._reread()

    def remove(self, indices: list[int]) -> None:
        self.session.delete([self._number(i) for i in indices])
        self._reread()

    def add_swipe(self, text: str, *, switch: bool) -> int:
        index = self._number(len(self.state.chat) - 1)
        before = self.session.leaf
        self.session.edit(index, text)  # a sibling of the last reply: SillyTavern's swipes
        if not switch and before is not None:
            self.session.goto(before)
        self._reread()
        last = self.state.chat[-1]
        swipes = last.get("swipes")
        return len(swipes) - 1 if isinstance(swipes, list) else 0

    def set_input(self, text: str) -> None:
        self.input_text = text
        self.input_written = True

    # -- the model ---------------------------------------------------------------------------------

    def _send(
        self,
        messages: list[dict[str, Any]],
        gen_type: str,
        stop: list[str] | tuple[str, ...] = (),
        length: int = 0,
    ) -> str:
        body = request_body(self._oai(length), messages, gen_type, stop=stop)
        self.requests.append(body)
        try:
            text = side_request(self.session, body)
        except ProviderError as error:
            raise GenerationError(str(error)) from error
        finally:
            self._generated()
        return text

    def generate(self, kind: str, text: str, *, wait: bool) -> None:
        """A beat of the chat: ``/trigger`` answers the last message, ``/regenerate``, ``/swipe``,
        ``/continue``; ``/impersonate`` writes the user's line into the input box."""
        session = self.session
        last = self.state.chat[-1] if self.state.chat else None
        if kind == "normal":
            if last is None or not last.get("is_user"):
                self.toast("warning", "/trigger：最后一条不是用户的消息，没有要回答的内容")
                return
            self._play(session.play("regenerate").events())
        elif kind == "impersonate":
            self.set_input(self._play(session.impersonate()))
        elif kind == "swipe":
            count = len(last.get("swipes") or [1]) if last else 1
            current = int(last.get("swipe_id") or 0) if last else 0
            self._play(session.play("swipe", step=count - current).events())
        else:
            self._play(session.play("regenerate" if kind == "regenerate" else "continue").events())
        self._reread()
        self._generated()

    def _play(self, events: Iterable[AgentEvent]) -> str:
        """A beat run to its end; its errors and warnings become the script's toasts."""
        written: list[str] = []
        for event in events:
            if isinstance(event, TextDeltaEvent):
                written.append(event.text)
            elif isinstance(event, TextRetractEvent):
                written[:] = [take_back("".join(written), event.text)]
            elif isinstance(event, ErrorEvent):
                self.toast("error", event.message)
            elif isinstance(event, WarningEvent):
                self.warnings.append(event.message)
        return "".join(written)

    # -- asking ------------------------------------------------------------------------------------

    def popup(self, text: str, *, ok: str, cancel: Any) -> bool:
        self.popups.append(text)
        return self.asker.popup(text)

    def prompt_input(self, text: str, default: str) -> str | None:
        self.popups.append(text)
        return self.asker.text(text, default)

    def choose(self, text: str, labels: list[str], *, multiple: bool) -> str | None:
        self.popups.append(text)
        return self.asker.choose(text, labels)

    # -- Quick Replies -----------------------------------------------------------------------------

    def _chat_links(self) -> list[dict[str, Any]]:
        found = self.metadata.get("quickReply")
        links = found.get("setList") if isinstance(found, dict) else None
        return [dict(link) for link in links if isinstance(link, dict)] if isinstance(links, list) else []

    def quick_replies(self) -> QuickReplyLibrary:
        return self.library

    def save_quick_reply_set(self, name: str, *, deleted: bool = False) -> None:
        if deleted:
            delete_set(self.home, name)
            return
        found: QuickReplySet | None = self.library.get(name)
        if found is not None:
            save_set(self.home, found)

    def save_quick_reply_links(self, where: str) -> None:
        if where == "global":
            save_links(self.home, self.library)
        else:
            self.metadata["quickReply"] = {"setList": list(self.library.chat_sets)}

    # -- the end of the run ------------------------------------------------------------------------

    def finish(self) -> None:
        """Variables and metadata the script changed, kept: the chat's with the chat, the global ones
        in the data folder."""
        if self.globals != self._start_globals:
            write_global_variables(self.home, self.globals)
        if self.metadata != self._start_metadata:
            self.session.save_chat_metadata(copy.deepcopy(self.metadata))
            self.changed = True


def run_chat_script(
    session: ChatSession,
    script: str,
    *,
    asker: Asker | None = None,
    input_text: str = "",
    handle_execution_errors: bool = True,
    on_host: Callable[[ChatSlashHost], None] | None = None,
) -> SlashOutcome:
    """Run *script* on the chat as the chat bar runs it: parser errors and command errors become
    error toasts (SillyTavern's ``executeSlashCommandsOnChatInput``), what the script changed is kept."""
    host = ChatSlashHost(session, asker=asker, input_text=input_text)
    if on_host is not None:
        on_host(host)
    try:
        outcome = run_script(
            Interpreter(default_registry(), host), script, handle_execution_errors=handle_execution_errors
        )
    finally:
        host.finish()
    return SlashOutcome(
        result=outcome.result.to_json() if outcome.result is not None else None,
        thrown={"name": outcome.error.kind, "message": outcome.error.message} if outcome.error is not None else None,
        toasts=host.toasts,
        input_text=host.input_text if host.input_written else None,
        warnings=host.warnings,
        popups=host.popups,
        changed=host.changed,
    )


def command_catalog() -> list[dict[str, Any]]:
    """Every command as the page's autocomplete and help show it."""

    def arg(a: Any) -> dict[str, Any]:
        return {"name": a.name, "description": a.description, "types": list(a.types), "required": a.required,
                "default": a.default, "choices": list(a.choices)}  # fmt: skip

    return [
        {
            "name": command.name,
            "aliases": list(command.aliases),
            "help": command.help,
            "named": [arg(a) for a in command.named],
            "unnamed": [arg(a) for a in command.unnamed],
            "returns": command.returns,
        }
        for command in default_registry().commands()
    ]


def chat_quick_reply_links(session: ChatSession) -> list[dict[str, Any]]:
    """The chat's own Quick Reply sets (its metadata's ``quickReply.setList``)."""
    state = _tavern_state(session)
    found = state.chat_metadata.get("quickReply")
    links = found.get("setList") if isinstance(found, dict) else None
    return [dict(link) for link in links if isinstance(link, dict)] if isinstance(links, list) else []


def set_chat_quick_reply_links(session: ChatSession, value: dict[str, Any]) -> None:
    """The chat's own Quick Reply sets, kept in its metadata."""
    metadata = copy.deepcopy(_tavern_state(session).chat_metadata)
    metadata["quickReply"] = value
    session.save_chat_metadata(metadata)


def run_stored_chat_script(home: Home, chat_id: str, script: str, *, card: str | None = None) -> SlashOutcome:
    """``pear slash --chat ID SCRIPT``: the script on a chat of the data folder."""
    record = find_chat(home, chat_id, card)
    session = PearApp(home).open_chat(record.folder.folder, chat_id, ChatOptions())
    return run_chat_script(session, script)


__all__ = [
    "Asker",
    "ChatSlashHost",
    "SlashOutcome",
    "chat_quick_reply_links",
    "command_catalog",
    "run_chat_script",
    "run_stored_chat_script",
    "set_chat_quick_reply_links",
    "side_request",
]
