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
(:mod:`peargarden.workspace.script_allowance`).  That is decided on the light reads
(:mod:`peargarden.variables.marks`, ``history``, ``schema_script``); MVU's engine (``initvar``,
``message``, ``zod_schema`` and the parsers, math and dates under them: about 70 M instructions of
a process) is imported by the steps that run only when MVU keeps the chat's variables.

A group chat (:func:`speaker_prepare`) is one chat whose records every speaker's reply carries on:
the same steps run after each speaker's reply, and a speaker's own books seed the variables when
its turn starts (``docs/variables.md``, *Group chats*).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.errors import PearError
from peargarden.formats.helper_scripts import helper_scripts
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.variables import chat_metadata, chat_variables, note_data, note_records
from peargarden.variables.history import is_mvu_data, last_valid_variables, swipe_variables, variables_at
from peargarden.variables.marks import Lorebook, is_initvar_entry, is_update_rules
from peargarden.variables.schema_script import registering_scripts
from peargarden.variables.script_budget import ScriptBudget
from peargarden.workspace.script_allowance import scripts_allowance

from .base import BeatEnv, chat_memo

if TYPE_CHECKING:
    from peargarden.variables.zod_schema import MvuSchema

_PENDING_KEY = "variables.pending"


class StChat(msgspec.Struct):
    """A branch as SillyTavern's chat: ST-shaped messages (``is_user``, ``is_system``, ``mes``,
    ``swipe_id``, ``variables``: the current swipe's record or none) and the entry each stands for."""

    messages: list[dict[str, Any]]
    ids: list[str | None]
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)

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
    history: Sequence[ContextMessage],
    customs: Iterable[Mapping[str, Any]],
    header: Mapping[str, Any] | None = None,
    *,
    group: bool = False,
) -> StChat:
    """The branch (its context, shown texts applied, and its custom entries) as SillyTavern's chat.
    A reply's tool rounds are one message; in a *group* chat a reply that ended (no tool call) or a
    reply by another member starts a new one, as each speaker's reply is its own message there."""
    customs = list(customs)
    notes = note_records(customs)
    messages: list[dict[str, Any]] = []
    ids: list[str | None] = []
    previous: ContextMessage | None = None  # the last reply message read
    for message in history:
        if message.role not in ("user", "assistant") or "compaction" in message.tags:
            continue
        follows = message.role == "assistant" and messages and not messages[-1]["is_user"] and ids[-1] is not None
        if follows and not (group and previous is not None and _new_reply(previous, message)):
            if message.content:  # a later round of the same reply: its text is the reply's
                messages[-1]["mes"], ids[-1] = message.content, message.entry_id
                _attach(messages[-1], notes.get(message.entry_id or ""))
            previous = message
            continue
        previous = message if message.role == "assistant" else None
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
    *,
    group: bool = False,
) -> StChat:
    """:func:`st_chat` of the branch's last messages when they hold an MVU record (a long chat's beat
    reads its end only), else of the whole branch.  *recent_customs*: the custom entries of that end,
    when the caller can give them cheaply (else all of *customs* are read)."""
    if len(history) > TAIL_MESSAGES:
        tail = history[-TAIL_MESSAGES:]
        chat = st_chat(tail, recent_customs() if recent_customs is not None else customs, group=group)
        if chat.has_mvu():
            chat.metadata = chat_metadata(customs)
            return chat
    return st_chat(history, customs, group=group)


def _new_reply(previous: ContextMessage, message: ContextMessage) -> bool:
    """In a group chat: *message* starts another reply than *previous*'s (that one ended, or another
    member speaks: the stage's ``next_speaker`` call ends a reply with a tool call)."""
    return not previous.tool_calls or (message.name or "") != (previous.name or "")


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
    return scripts_allowance(env.folder)


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


def greeting_seed(
    texts: Sequence[str], books: Sequence[Lorebook], schema: MvuSchema | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``[initvar]`` records of a new chat's greeting swipes (one per text), and what could not
    be read (an ``[initvar]`` entry named with its problem); *schema*: the card's registered zod
    schema, which parses each seed."""
    from peargarden.variables.initvar import greeting_records, initialize

    init = initialize(None, books)
    warnings = list(init.warnings)
    records = greeting_records(
        init, list(texts), books=books, character_book=_character_book(books), schema=schema, warnings=warnings
    )
    return records, list(dict.fromkeys(warnings))


def schema_scripts(
    *extensions: object, budget: ScriptBudget, sources: Callable[[str], str | None] | None = None
) -> MvuSchema | None:
    """The zod schema the TavernHelper scripts in *extensions* (a preset's, then the card's, in the
    order TavernHelper runs them) register with MVU, spending *budget*; ``None`` when no enabled
    script registers one.  *sources*: the card's remote modules kept in the data folder (a schema
    imported from a URL)."""
    scripts = ((s.name, s.content) for ext in extensions for s in helper_scripts(ext) if s.enabled)
    found = registering_scripts(scripts, sources)
    if not found:  # most cards: the engine that runs a schema (QuickJS, MVU's parsers) stays unloaded
        return None
    from peargarden.variables.zod_schema import MvuSchema

    return MvuSchema(found, budget)


_BUDGET_KEY = "variables.script_budget"


def script_budget(env: BeatEnv) -> ScriptBudget:
    """The CPU budget the card's scripts share in the beat running now (kept in the env's per-chat
    cache).  :func:`start_beat` renews it."""
    return chat_memo(env, _BUDGET_KEY, ScriptBudget, lambda: ScriptBudget(time.thread_time))


def start_beat(env: BeatEnv) -> None:
    """A beat (or a preview) starts for *env*'s card: its scripts get their whole budget again."""
    script_budget(env).start_beat()


class Prepared(msgspec.Struct):
    """The chat as a request sees it: records in force, and the ones not yet written to the branch."""

    chat: StChat
    seeded: int | None = None  # the message given its [initvar] seed (the greeting)
    user: int | None = None  # the user's message given its record
    # A group chat: the message whose record a newly read book's [initvar] seed was merged into.
    rewritten: int | None = None
    warnings: list[str] = msgspec.field(default_factory=list)


def prepare(
    chat: StChat,
    books: Sequence[Lorebook],
    pending: Mapping[str, dict[str, Any]] | None = None,
    schema: MvuSchema | None = None,
) -> Prepared:
    """Fill in what MVU would have written by now: the greeting's seed (when the branch holds no MVU
    record yet) and the last user message's record (*pending*: records a template changed, by
    message id; *schema*: the card's registered zod schema)."""
    out = Prepared(chat)
    messages = chat.messages
    if messages and books and not chat.has_mvu():
        first = next((i for i, m in enumerate(messages) if not m["is_user"]), 0)
        records, warnings = greeting_seed([messages[first]["mes"]], books, schema)
        out.warnings += warnings
        chat.set_record(first, records[0])
        out.seeded = first
    _user_record(out, pending, schema)
    return out


def speaker_prepare(
    chat: StChat,
    books: Sequence[Lorebook],
    pending: Mapping[str, dict[str, Any]] | None = None,
    reply_id: str | None = None,
    schema: MvuSchema | None = None,
) -> Prepared:
    """:func:`prepare` for a group chat's speaker (*books*: the speaker's).  MVU checks its
    ``[initvar]`` books each time a generation starts, and in a group the books active then are the
    speaker's own (and the global ones): a book not yet in the variables' ``initialized_lorebooks``
    is read, its seed merged under the variables carried so far (theirs win), and the result written
    to the latest message — or to every swipe of the greeting when the chat holds that one message
    only.  The user's message, sent after the generation started, then gets its copy.  *reply_id*:
    the reply this generation wrote (the chat as it stood before it is what counts)."""
    out = Prepared(chat)
    messages = chat.messages
    end = len(messages)
    reply = chat.index_of(reply_id) if reply_id else None
    if reply is not None:
        end = reply
    if end and messages[end - 1]["is_user"] and not isinstance(chat.record(end - 1), dict):
        end -= 1  # the user's message is posted after the generation starts
    if end and books:
        _init_check(out, end, books, schema)
    _user_record(out, pending, schema)
    return out


def _init_check(out: Prepared, end: int, books: Sequence[Lorebook], schema: MvuSchema | None) -> None:
    """MVU's ``initCheck`` over the chat's first *end* messages (see :func:`speaker_prepare`)."""
    from peargarden.variables.initvar import initialize

    chat = out.chat
    existing = last_valid_variables(chat.messages, end)
    if end == 1 and not is_mvu_data(existing):
        records, warnings = greeting_seed([chat.messages[0]["mes"]], books, schema)
        chat.set_record(0, records[0])
        out.warnings += warnings
        out.seeded = 0
        return
    init = initialize(existing if is_mvu_data(existing) else None, books)
    out.warnings += init.warnings
    if init.updated:
        if schema is not None:  # MVU parses what initCheck merged, as it parses a greeting's seed
            out.warnings += schema.initialized(init.variables, _swipe_of(chat.messages[end - 1])).warnings
        chat.set_record(end - 1, init.variables)
        out.rewritten = end - 1


def _swipe_of(message: Mapping[str, Any]) -> int:
    swipe = message.get("swipe_id")
    return swipe if isinstance(swipe, int) and not isinstance(swipe, bool) else 0


def prepare_for(
    group: bool,
) -> Callable[
    [StChat, Sequence[Lorebook], Mapping[str, dict[str, Any]] | None, str | None, MvuSchema | None], Prepared
]:
    """How a chat's records are brought up to a generation: a card's chat (:func:`prepare`, the reply
    not needed) or a group's (:func:`speaker_prepare`)."""
    if group:
        return speaker_prepare
    return lambda chat, books, pending, _reply, schema: prepare(chat, books, pending, schema)


def _user_record(out: Prepared, pending: Mapping[str, dict[str, Any]] | None, schema: MvuSchema | None) -> None:
    """The last user message's record, when it has none yet (MVU's copy at ``MESSAGE_SENT``)."""
    chat = out.chat
    messages = chat.messages
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i]["is_user"]), None)
    if last is None or isinstance(chat.record(last), dict):
        return
    kept = (pending or {}).get(chat.ids[last] or "")
    if kept is not None:
        chat.set_record(last, copy.deepcopy(kept))
        out.user = last
        return
    from peargarden.variables.message import handle_variables_in_message

    try:
        outcome = handle_variables_in_message(messages[: last + 1], last, schema=schema)
    except PearError as error:
        out.warnings.append(str(error))
        return
    if outcome is not None:
        chat.set_record(last, outcome.message_variables)
        out.user = last
        out.warnings += outcome.warnings


def pending_records(env: BeatEnv) -> dict[str, dict[str, Any]]:
    """Records a request changed before the beat could write them (a template's ``setvar`` on the
    user's message), by message id: kept in the chat's memo until the after-beat step writes them."""
    return chat_memo(env, _PENDING_KEY, dict)


class ReplyUpdate(msgspec.Struct):
    """What the after-beat step writes: ``(message id, note data)`` pairs, and MVU's refusals."""

    notes: list[dict[str, Any]] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


def beat_notes(
    prepared: Prepared,
    reply_id: str | None,
    greeting_swipes: Sequence[tuple[str, str]] = (),
    *,
    books: Sequence[Lorebook] = (),
    start: Mapping[str, Any] | None = None,
    shown: Callable[[str], str] | None = None,
    schema: MvuSchema | None = None,
) -> ReplyUpdate:
    """The notes a finished beat writes: the greeting's seed (every swipe: *greeting_swipes* are
    ``(id, text)``), the user's record, and the reply's record and shown text (MVU's handling;
    *start*: the variables the reply applies to when not the ones before it; *shown*: what becomes
    of the reply's text besides MVU's placeholder; *schema*: the card's registered zod schema)."""
    chat = prepared.chat
    update = ReplyUpdate(warnings=list(prepared.warnings))
    if prepared.seeded is not None:
        swipes = list(greeting_swipes) or [(chat.ids[prepared.seeded] or "", chat.messages[prepared.seeded]["mes"])]
        records, _ = greeting_seed([text for _, text in swipes], books, schema)  # said by *prepared*
        for (entry_id, _), record in zip(swipes, records, strict=True):
            if entry_id:
                update.notes.append(note_data(entry_id, variables=record))
    if prepared.rewritten is not None and chat.ids[prepared.rewritten]:
        update.notes.append(note_data(str(chat.ids[prepared.rewritten]), variables=chat.record(prepared.rewritten)))
    if prepared.user is not None and chat.ids[prepared.user]:
        update.notes.append(note_data(str(chat.ids[prepared.user]), variables=chat.record(prepared.user)))
    index = chat.index_of(reply_id) if reply_id else None
    if index is None:
        return update
    from peargarden.variables.message import handle_variables_in_message

    try:
        outcome = handle_variables_in_message(chat.messages, index, start=start, schema=schema)
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
    extensions = env.card.data.get("extensions")
    helper = extensions.get("tavern_helper") if isinstance(extensions, dict) else None
    found = helper.get("variables") if isinstance(helper, dict) else None
    return dict(found) if isinstance(found, dict) else {}
