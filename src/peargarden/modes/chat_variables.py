"""A chat's variables as MVU and TavernHelper hold them: read from a branch, brought up to date after
a beat.  Shared by tavern and stage mode (and read by the app for ``pear vars show`` and the page).

The branch is read as SillyTavern's chat (:func:`st_chat`): one message per user message and per
reply (a reply's tool rounds collapse into its last text), each with the records its note holds
(:mod:`peargarden.sessions.variables`).  What MVU writes and when (``../shared/mvu/cases/README.md``):

- a new chat's greeting gets its ``[initvar]`` seed (every greeting swipe its own record);
- the user's message, once sent, a copy of the variables before it (its own commands applied);
- the reply, once complete, the variables after its update commands, and its text the status
  placeholder (:func:`peargarden.variables.message.handle_variables_in_message`).

Here the seed and the user's record are known before the request (the prompt's macros read them)
but written with the reply's after the beat (:func:`beat_notes`), after the reply on its branch:
nothing is written between the user's message and the reply, so a regenerate stays a swipe.

MVU runs for a card with an ``[initvar]`` entry or ``[mvu_update]`` rules in its lorebooks, or a chat
that already holds MVU records, unless the user said no to the card's scripts
(:mod:`peargarden.workspace.script_allowance`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from peargarden.errors import PearError
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.variables import chat_metadata, chat_variables, note_data, note_records
from peargarden.variables.history import is_mvu_data, swipe_variables, variables_at
from peargarden.variables.initvar import Lorebook, greeting_records, initialize, is_initvar_entry
from peargarden.variables.marks import is_update_rules
from peargarden.variables.message import handle_variables_in_message
from peargarden.workspace.script_allowance import scripts_allowance

from .base import BeatEnv, card_fields, chat_memo

_PENDING_KEY = "variables.pending"


@dataclass
class StChat:
    """A branch as SillyTavern's chat: ST-shaped messages (``is_user``, ``is_system``, ``mes``,
    ``swipe_id``, ``variables``: the current swipe's record or none) and the entry each stands for."""

    messages: list[dict[str, Any]]
    ids: list[str | None]
    metadata: dict[str, Any] = field(default_factory=dict)

    def index_of(self, entry_id: str | None) -> int | None:
        for index in range(len(self.ids) - 1, -1, -1):
            if self.ids[index] == entry_id:
                return index
        return None

    def record(self, index: int) -> Any:
        return swipe_variables(self.messages[index])

    def set_record(self, index: int, record: dict[str, Any]) -> None:
        self.messages[index]["variables"] = [record]

    def in_force(self) -> dict[str, Any]:
        """TavernHelper's message scope for a prompt: the latest message's record."""
        return variables_at(self.messages, None) if self.messages else {}

    @property
    def chat_variables(self) -> dict[str, Any]:
        return chat_variables(self.metadata)

    def has_mvu(self) -> bool:
        return any(is_mvu_data(self.record(index)) for index in range(len(self.messages)))


def st_chat(
    history: Sequence[ContextMessage], customs: Iterable[Mapping[str, Any]], header: Mapping[str, Any] | None = None
) -> StChat:
    """The branch (its context, shown texts applied, and its custom entries) as SillyTavern's chat."""
    customs = list(customs)
    notes = note_records(customs)
    messages: list[dict[str, Any]] = []
    ids: list[str | None] = []
    for message in history:
        if message.role not in ("user", "assistant") or "compaction" in message.tags:
            continue
        if message.role == "assistant" and messages and not messages[-1]["is_user"] and ids[-1] is not None:
            if message.content:  # a later round of the same reply: its text is the reply's
                messages[-1]["mes"], ids[-1] = message.content, message.entry_id
                _attach(messages[-1], notes.get(message.entry_id or ""))
            continue
        line = {
            "is_user": message.role == "user",
            "is_system": message.hidden,
            "mes": message.content,
            "swipe_id": 0,
            "variables": [],
        }
        _attach(line, notes.get(message.entry_id or ""))
        messages.append(line)
        ids.append(message.entry_id)
    return StChat(messages, ids, chat_metadata(customs, header))


# How much of a branch's end is read first: a beat needs the record in force, the user's message and
# the reply, which sit there as soon as the chat holds MVU records at all.
TAIL_MESSAGES = 64


def recent_chat(
    history: Sequence[ContextMessage],
    customs: Iterable[Mapping[str, Any]],
    recent_customs: Callable[[], Iterable[Mapping[str, Any]]] | None = None,
) -> StChat:
    """:func:`st_chat` of the branch's last messages when they hold an MVU record (a long chat's beat
    reads its end only), else of the whole branch.  *recent_customs*: the custom entries of that end,
    when the caller can give them cheaply (else all of *customs* are read)."""
    if len(history) > TAIL_MESSAGES:
        tail = history[-TAIL_MESSAGES:]
        chat = st_chat(tail, recent_customs() if recent_customs is not None else customs)
        if chat.has_mvu():
            chat.metadata = chat_metadata(customs)
            return chat
    return st_chat(history, customs)


def _attach(line: dict[str, Any], note: Mapping[str, Any] | None) -> None:
    # The note's own record, not a copy: the engine copies what it changes (a long chat holds
    # thousands of records, and a beat reads one or two of them).
    record = note.get("variables") if note is not None else None
    line["variables"] = [record] if isinstance(record, dict) else []


def card_books(worlds: Mapping[str, Any], order: Sequence[str]) -> list[Lorebook]:
    """The card's lorebooks (``modes.tavern.sources.card_worlds``) as MVU reads them, in order."""
    return [Lorebook(name, worlds[name].get("entries") or {}) for name in order if isinstance(worlds.get(name), dict)]


def _comments(books: Sequence[Lorebook]) -> Iterable[Mapping[str, Any]]:
    for book in books:
        yield from book.ordered_entries()


def scripts_allowed(env: BeatEnv) -> bool | None:
    """The user's answer for the card's scripts (None: never asked)."""
    return scripts_allowance(env.card)


def mvu_active(allowed: bool | None, books: Sequence[Lorebook], chat: StChat | None = None) -> bool:
    """Whether MVU keeps this chat's variables (see the module docstring); *allowed*: the user's
    answer for the card's scripts."""
    if allowed is False:
        return False
    if chat is not None and chat.has_mvu():
        return True
    return any(is_initvar_entry(entry) or is_update_rules(entry) for entry in _comments(books))


def _character_book(books: Sequence[Lorebook]) -> str | None:
    return books[0].name if books else None


def greeting_seed(texts: Sequence[str], books: Sequence[Lorebook]) -> list[dict[str, Any]]:
    """The ``[initvar]`` records of a new chat's greeting swipes (one per text)."""
    init = initialize(None, books)
    return greeting_records(init, list(texts), books=books, character_book=_character_book(books))


@dataclass
class Prepared:
    """The chat as a request sees it: records in force, and the ones not yet written to the branch."""

    chat: StChat
    seeded: int | None = None  # the message given its [initvar] seed (the greeting)
    user: int | None = None  # the user's message given its record
    warnings: list[str] = field(default_factory=list)


def prepare(chat: StChat, books: Sequence[Lorebook], pending: Mapping[str, dict[str, Any]] | None = None) -> Prepared:
    """Fill in what MVU would have written by now: the greeting's seed (when the branch holds no MVU
    record yet) and the last user message's record (*pending*: records a template changed, by
    message id)."""
    out = Prepared(chat)
    messages = chat.messages
    if messages and books and not chat.has_mvu():
        first = next((i for i, m in enumerate(messages) if not m["is_user"]), 0)
        chat.set_record(first, greeting_seed([messages[first]["mes"]], books)[0])
        out.seeded = first
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i]["is_user"]), None)
    if last is None or isinstance(chat.record(last), dict):
        return out
    kept = (pending or {}).get(chat.ids[last] or "")
    if kept is not None:
        chat.set_record(last, copy.deepcopy(kept))
        out.user = last
        return out
    try:
        outcome = handle_variables_in_message(messages[: last + 1], last)
    except PearError as error:
        out.warnings.append(str(error))
        return out
    if outcome is not None:
        chat.set_record(last, outcome.message_variables)
        out.user = last
        out.warnings += outcome.warnings
    return out


def pending_records(env: BeatEnv) -> dict[str, dict[str, Any]]:
    """Records a request changed before the beat could write them (a template's ``setvar`` on the
    user's message), by message id: kept in the chat's memo until the after-beat step writes them."""
    return chat_memo(env, _PENDING_KEY, dict)


@dataclass
class ReplyUpdate:
    """What the after-beat step writes: ``(message id, note data)`` pairs, and MVU's refusals."""

    notes: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def beat_notes(
    prepared: Prepared,
    reply_id: str | None,
    greeting_swipes: Sequence[tuple[str, str]] = (),
    *,
    books: Sequence[Lorebook] = (),
    start: Mapping[str, Any] | None = None,
    shown: Callable[[str], str] | None = None,
) -> ReplyUpdate:
    """The notes a finished beat writes: the greeting's seed (every swipe: *greeting_swipes* are
    ``(id, text)``), the user's record, and the reply's record and shown text (MVU's handling;
    *start*: the variables the reply applies to when not the ones before it; *shown*: what becomes
    of the reply's text besides MVU's placeholder)."""
    chat = prepared.chat
    update = ReplyUpdate(warnings=list(prepared.warnings))
    if prepared.seeded is not None:
        swipes = list(greeting_swipes) or [(chat.ids[prepared.seeded] or "", chat.messages[prepared.seeded]["mes"])]
        for (entry_id, _), record in zip(swipes, greeting_seed([text for _, text in swipes], books), strict=True):
            if entry_id:
                update.notes.append(note_data(entry_id, variables=record))
    if prepared.user is not None and chat.ids[prepared.user]:
        update.notes.append(note_data(str(chat.ids[prepared.user]), variables=chat.record(prepared.user)))
    index = chat.index_of(reply_id) if reply_id else None
    if index is None:
        return update
    try:
        outcome = handle_variables_in_message(chat.messages, index, start=start)
    except PearError as error:  # MVU throws on some replies; the beat is kept, the variables are not
        update.warnings.append(str(error))
        return update
    if outcome is None:
        return update
    original = chat.messages[index]["mes"]
    text = outcome.message_text if outcome.message_text is not None else original
    if shown is not None:
        text = shown(text)
    update.notes.append(note_data(str(reply_id), variables=outcome.message_variables,
                                  text=text if text != original else None))  # fmt: skip
    update.warnings += outcome.warnings
    return update


def character_variables(env: BeatEnv) -> dict[str, Any]:
    """TavernHelper's character scope: the card's ``extensions.tavern_helper.variables``."""
    extensions = card_fields(env).get("extensions")
    helper = extensions.get("tavern_helper") if isinstance(extensions, dict) else None
    found = helper.get("variables") if isinstance(helper, dict) else None
    return dict(found) if isinstance(found, dict) else {}
