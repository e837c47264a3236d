"""The one service API the fronts call: open a card, start or continue a chat, and play it.

    app = PearApp(Home.resolve())
    chat = app.new_chat("青梧")                   # or app.open_chat("青梧", chat_id) / app.latest_chat(...)
    beat = chat.play("send", "掌柜可还记得怀瑾公子？")  # or "regenerate", "swipe", "continue", "impersonate"
    for item in beat:                              # agent events and approval prompts (app.beat)
        ...
    beat.result                                    # stop reason, replies, entries, requests, warnings
    chat.edit(2, "新的话"); chat.delete(3); chat.branch(1); chat.view()

A beat is the same whichever front plays it: the user's message is written before the model is
called, the requests it sends go to the app's ``on_request`` hooks and into the beat's result, the
chat's mode runs its steps around it (``PlayMode.prepare``, ``story``, ``after_beat``), and the
beat log beside the session file is written when it ends.  ``send``, ``regenerate``, ``swipe``,
``continue_`` and ``impersonate`` are the same beat's events on the caller's thread.

One beat or edit per chat at a time, across processes: each one first takes the chat's lock
(:mod:`peargarden.workspace.chat_lock`; a second claimant gets ``ChatBusy``, a ``ConflictError``)
and reads what other processes appended meanwhile, so its entries join the chat where it really ends.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, get_args

import msgspec
from msgspec.structs import replace

from peargarden.agent.approvals import Approver, CardGrantRecorder, Judge
from peargarden.agent.events import (
    AgentEvent,
    DoneEvent,
    ReplyEndEvent,
    TextDeltaEvent,
    ThinkingDeltaEvent,
    WarningEvent,
)
from peargarden.agent.loop import BeatInput, BeatKind, BeatSettings, BuiltRequest, ModeSwitch, run_beat
from peargarden.agent.record import no_record
from peargarden.agent.result import BEAT_PURPOSE, SentRequest
from peargarden.agent.thinking import parse_level
from peargarden.agent.tools import Tool, ToolContext, ToolRegistry
from peargarden.app.play.sandbox_judge import make_card_grant_recorder, make_sandbox_judge
from peargarden.errors import BadInput, NotFound, PearError, StorageError
from peargarden.formats import (
    TavernChat,
    TavernMessage,
    card_to_object,
    format_create_date,
    read_chat_jsonl,
    write_chat_jsonl,
)
from peargarden.modes.base import MODE_ENTRY_TYPE, BeatEnv, BranchView, PlayMode, SideCall
from peargarden.modes.side import ProviderSideCall, side_thinking
from peargarden.modes.table import MODES
from peargarden.providers.base import ChatRequest, Provider, StreamEvent, ThinkingLevel
from peargarden.sessions import TreeRow, ops
from peargarden.sessions.context import ContextMemo, ContextMessage
from peargarden.sessions.entries import GREETING_TAG, Entry
from peargarden.sessions.sillytavern import export_chat, import_chat
from peargarden.sessions.variables import CHAT_METADATA_TYPE, MESSAGE_VARIABLES_TYPE, note_data
from peargarden.tavern.version import for_version
from peargarden.text.macro_dispatch import expand
from peargarden.text.macros import MacroEnv, Variables
from peargarden.text.rolls import live_random
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.chat_lock import ChatBusy, ChatLock, chat_lock_file
from peargarden.workspace.chats import ChatFile, branch_mode, last_written, list_chats, recorded_mode, utc_now
from peargarden.workspace.config import LOCAL_PROVIDER, Settings, check_st_version, load_settings
from peargarden.workspace.home import Home

from ..library.personas import PERSONA_ENTRY_TYPE, choose_persona, load_persona, recorded_persona
from ..settings.connections import Connection, ResolvedProvider, resolve_provider, resolve_side
from ..settings.stored_keys import with_stored_key
from . import beat_log
from .beat import Beat
from .chat_page import ChatView, chat_view
from .chat_variables import ChatVariables, session_variables
from .checkpoints import StreamCheckpoint, checkpoint_file, recover
from .hidden_updates import without_update_blocks

DEFAULT_CARD = "青梧"
# How long a beat asked for while the last one runs its after-beat step (scene notes, compaction)
# waits for it, seconds; the side model's own timeouts end that step well before.
AFTER_BEAT_WAIT = 600.0

# What a front may ask a chat to do (``ChatSession.play``).
Action = Literal["send", "regenerate", "swipe", "continue", "impersonate"]
ACTIONS: tuple[str, ...] = get_args(Action)

# Told about every request a chat sends (the model's rounds and the side calls), as it is sent.
RequestHook = Callable[[SentRequest], None]


class ChatOptions(msgspec.Struct):
    """Per-chat choices a front may override (``None`` = from config / card / defaults)."""

    mode: str | None = None
    thinking: str | None = None
    persona: str | None = None
    connection: Connection | None = None
    # Tavern mode's preset and SillyTavern release, for this chat only (a dry run's ``--preset`` and
    # ``--st-version``); ``None``: the card's, else config.toml's.
    preset: str | None = None
    st_version: str | None = None


class PearApp(msgspec.Struct):
    home: Home
    # Tests and the bench inject a provider; None: resolved from config.toml (plus keys stored from
    # the web's settings page) and the front's connection (see app.connections).
    provider_factory: Callable[[Settings, Connection | None], ResolvedProvider] | None = None
    # Called with every request any chat of this app sends, as it is sent (httpx's event hooks):
    # the beats' own records and the beat log need none of them.
    on_request: list[RequestHook] = msgspec.field(default_factory=list)
    # None: the sandbox judges every tool call (lists from config.toml) and "allow for this card"
    # answers are written to the card's 卡.json.
    judge: Judge | None = None
    record_card_grant: CardGrantRecorder | None = None
    # Story memory (scene notes, compaction, card memory: the stage's steps).  None = on when the
    # side model is not the embedded demo model and the app resolves models itself or a side_model is
    # configured (an injected test provider is not spent on side calls unless asked).
    story_memory: bool | None = None
    # The ways to play, by name (the fronts use the standard table; tests pass their own).
    modes: Mapping[str, PlayMode] = msgspec.field(default_factory=lambda: MODES)

    def mode(self, name: str) -> PlayMode:
        """The mode called *name*; unknown names fail with the list of known ones."""
        try:
            return self.modes[name]
        except KeyError:
            raise BadInput(f"未知的对话方式 {name!r}（可用：{'、'.join(self.modes)}）") from None

    # -- cards -------------------------------------------------------------------------------------

    def resolve(self, settings: Settings, connection: Connection | None = None) -> ResolvedProvider:
        """The main model for *settings* (the injected factory, else the standard resolution)."""
        if self.provider_factory is not None:
            return self.provider_factory(settings, connection)
        return resolve_provider(with_stored_key(self.home, settings), connection)

    def keeps_story_memory(self, settings: Settings, main: ResolvedProvider) -> bool:
        """Whether a chat keeps story memory (see :attr:`story_memory`); *main* is the chat's
        resolved main model, which the side model follows when ``[side_model]`` names none."""
        if self.story_memory is not None:
            return self.story_memory
        # The small embedded models cannot write the JSON patches and summaries; asking them would
        # only add a second slow generation to every beat.
        if settings.side_model.provider:
            return settings.side().provider != LOCAL_PROVIDER
        return not main.embedded and self.provider_factory is None

    def card(self, name: str | None = None) -> CardFolder:
        return open_card(self.home, name or DEFAULT_CARD)

    def settings(self, card: CardFolder, options: ChatOptions | None = None) -> Settings:
        """config.toml with the card's 卡.json on top, and a chat's own preset and release on that."""
        settings = card.effective_settings(load_settings(self.home.config_file))
        if options is not None and options.preset:
            settings = replace(settings, preset=options.preset)
        if options is not None and options.st_version:
            settings = replace(settings, st_version=check_st_version(options.st_version))
        return settings

    def list_chats(self, card_name: str | None = None) -> list[ChatFile]:
        card = self.card(card_name)
        return [ChatFile.open(card.chats_dir, chat_id) for chat_id in list_chats(card.chats_dir)]

    # -- chats -------------------------------------------------------------------------------------

    def new_chat(self, card_name: str | None = None, options: ChatOptions | None = None) -> ChatSession:
        options = options or ChatOptions()
        card = self.card(card_name)
        settings = self.settings(card, options)
        card.load_card()  # a damaged card fails here, before a chat folder is made
        header: dict[str, Any] = {"card": card.folder, "mode": self._mode(settings, {}, options)}
        if options.persona:
            header["persona"] = options.persona
        # The model is resolved before the chat folder is made: a failing start writes nothing.
        resolved = self.resolve(settings, options.connection)
        session = self._session(card, ChatFile.create(card.chats_dir, **header), options, resolved)
        if settings.greeting:
            session.add_greetings()
        return session

    def draft_chat(
        self,
        card_name: str | None = None,
        options: ChatOptions | None = None,
        *,
        small_model: bool | None = None,
        seed: int | None = None,
    ) -> ChatSession:
        """A new chat as :meth:`new_chat` would start it (greetings included) that lives only in
        memory: its :meth:`ChatSession.preview` is the first beat a new chat would send, and nothing
        is written.  A dry run shows what it is asked for: an explicit ``options.thinking`` or
        *small_model* (the small-model profile on or off) wins over what the model could do; *seed*
        makes its random rolls repeatable (world-info probability, ``{{random}}``)."""
        options = options or ChatOptions()
        card = self.card(card_name)
        settings = self.settings(card, options)
        header: dict[str, Any] = {"card": card.folder, "mode": self._mode(settings, {}, options)}
        if options.persona:
            header["persona"] = options.persona
        session = self._session(card, ChatFile.unsaved(card.chats_dir, **header), options)
        if settings.greeting:
            session.add_greetings()
        if options.thinking:
            session.env.thinking = parse_level(options.thinking)
        if small_model is not None:
            session.env.small_model = small_model
        session.env.seed = seed
        return session

    def open_chat(self, card_name: str | None, chat_id: str, options: ChatOptions | None = None) -> ChatSession:
        card = self.card(card_name)
        chat = ChatFile.open(card.chats_dir, chat_id)
        session = self._session(card, chat, options or ChatOptions())
        # A reply a crash cut off mid-stream comes back as an incomplete message (see
        # app.checkpoints); a chat another process is playing right now is left to that process.
        with contextlib.suppress(ChatBusy, StorageError):
            session._hold()()  # claimed (recovering what a crash left) and given back at once
        return session

    def latest_chat(self, card_name: str | None = None, options: ChatOptions | None = None) -> ChatSession | None:
        card = self.card(card_name)
        ids = list_chats(card.chats_dir)
        if not ids:
            return None
        # Imported chats keep their own names, so the most recently written file decides, not the id.
        latest = max(ids, key=lambda chat_id: (last_written(card.chats_dir, chat_id), chat_id))
        return self.open_chat(card.folder, latest, options)

    def import_chat(self, card_name: str | None, data: bytes, filename: str) -> ChatSession:
        """A SillyTavern chat JSONL as a new chat of the card (swipes become siblings)."""
        card = self.card(card_name)
        tavern = read_chat_jsonl(data, filename)
        lines = ([tavern.header] if tavern.header else []) + [m.raw for m in tavern.messages]
        settings = self.settings(card)
        resolved = self.resolve(settings, None)
        # Ids are drawn from a counter: the chat is new, so they cannot collide.
        counter = iter(range(1, 1 << 31))
        imported = import_chat(lines, lambda: f"{next(counter):08x}", utc_now())
        chat = ChatFile.create_with(
            card.chats_dir,
            imported.entries,
            imported.leaf,
            card=card.folder,
            mode=self._mode(settings, {}, ChatOptions()),
            imported=filename,
            st_header=imported.header,
        )
        session = self._session(card, chat, ChatOptions(), resolved)
        return session

    def _session(
        self, card: CardFolder, chat: ChatFile, options: ChatOptions, resolved: ResolvedProvider | None = None
    ) -> ChatSession:
        settings = self.settings(card, options)
        header = chat.header
        mode = self._mode(settings, header, options, chat)
        resolved = resolved or self.resolve(settings, options.connection)
        thinking = chat_thinking(resolved, options)
        card_persona = card.settings().get("persona")
        switched = recorded_persona(chat.tree.customs(PERSONA_ENTRY_TYPE))  # a switch made inside the chat
        persona = choose_persona(
            self.home.personas_dir,
            options.persona or switched or str(header.get("persona") or ""),
            card_persona if isinstance(card_persona, str) else "",
            settings.user_name,
            settings.user_persona,
        )
        card_data = card.load_card()
        env = BeatEnv(
            card=card,
            card_data=_card_object(card_data),
            settings=settings,
            user_name=persona.name,
            user_persona=persona.description,
            thinking=thinking,
            embedded=resolved.embedded,
            chat_id=chat.chat_id,
            small_model=resolved.small_model,
        )
        session = ChatSession(self, card, chat, settings, resolved, mode, env)
        session.start_mode = options.mode or _start_mode(settings, header)
        session.story_memory = self.keeps_story_memory(settings, resolved)
        env.story = session._story
        return session

    def _mode(
        self, settings: Settings, header: dict[str, Any], options: ChatOptions, chat: ChatFile | None = None
    ) -> str:
        recorded = _recorded_mode(chat) if chat is not None else ""
        mode = options.mode or recorded or _start_mode(settings, header)
        self.mode(mode)  # unknown modes fail here, with the list of known ones
        return mode


def chat_thinking(resolved: ResolvedProvider, options: ChatOptions) -> ThinkingLevel:
    """The thinking level a chat plays at: the front's, else the connection's, else ``medium``; the
    embedded model cannot think (the stage then sends lore as bodies)."""
    if resolved.embedded:
        return "off"
    return parse_level(options.thinking or resolved.thinking or "medium")


def _start_mode(settings: Settings, header: dict[str, Any]) -> str:
    return str(header.get("mode") or settings.mode or "stage")


chat_mode = branch_mode  # the mode a chat is in on its active branch (see workspace.chats)
_recorded_mode = recorded_mode


def _card_object(card: Any) -> dict[str, Any]:

    obj = card_to_object(card, "v3")
    return obj if isinstance(obj, dict) else {}


class Preview(msgspec.Struct):
    """What the next beat would send: the first request, its tools and the warnings it would show."""

    mode: str
    request: ChatRequest
    tools: list[Tool]
    warnings: list[str]
    # What the mode's builder shows besides the request (tavern: SillyTavern's "body" and "assembly").
    inspect: dict[str, Any] = msgspec.field(default_factory=dict)


class ChatSession(msgspec.Struct):
    app: PearApp
    card: CardFolder
    chat: ChatFile
    settings: Settings
    resolved: ResolvedProvider
    mode: str
    env: BeatEnv
    # The mode of a branch with no recorded mode change (``--mode`` of the front, else the chat
    # header's, else config.toml's); see :meth:`follow_branch`.
    start_mode: str = "stage"
    # Whether the chat keeps story memory (``PearApp.keeps_story_memory``); the mode's steps read it.
    story_memory: bool = False
    _context: ContextMemo = msgspec.field(default_factory=ContextMemo)
    _busy: threading.Lock = msgspec.field(default_factory=threading.Lock)
    # Set while the beat holding the chat runs its mode's after-beat step (its reply is complete):
    # a beat or edit asked for meanwhile waits for it instead of failing (see _hold).
    _tidying: threading.Event = msgspec.field(default_factory=threading.Event)
    _lock: ChatLock | None = None
    # The beat running now (its record collects the requests sent), and the chat's beat log as read.
    _beat: Beat | None = None
    _beats: list[beat_log.BeatRecord] | None = None
    # The main model's provider as the beats call it: every request seen on its way out.
    _provider: Provider | None = None

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = _Observed(self.resolved.provider, lambda request: self._observe(request, BEAT_PURPOSE))
        return self._provider

    # -- reading -----------------------------------------------------------------------------------

    @property
    def chat_id(self) -> str:
        return self.chat.chat_id

    @property
    def thinking(self) -> ThinkingLevel:
        return self.env.thinking

    def preview(self, mode: str | None = None, text: str = "") -> Preview:
        """The first request the next beat would send in *mode* (default: the chat's) after the user
        says *text* — built by the same setup and builder as the beat, and nothing is written.  A mode
        whose prepare step has work to do (a changed preset) says so in the warnings."""
        name = mode or self.mode
        play = self.app.mode(name)
        builder, tools = play.setup(self.env)
        tools = self._offered(tools, "send")
        history = self.context()
        if text:
            message = self._user_message(text, play)
            history.append(ContextMessage("user", text, name=message.get("name"), tags=list(message.get("tags", []))))
        specs = ToolRegistry(tools).specs()
        built = builder(BeatInput(history, text, self.env.thinking, specs, 0, play.tool_mode, "send", self._customs()))
        if isinstance(built, ChatRequest):
            built = BuiltRequest(built)
        request = built.request
        request.thinking = self.env.thinking  # as the loop sets them on every request it sends
        request.model = request.model or self.resolved.model
        return Preview(name, request, tools, list(built.warnings), dict(built.inspect))

    @property
    def model(self) -> str:
        """The main model's name, as requests carry it."""
        return self.resolved.model

    @property
    def char_name(self) -> str:
        """The card's character name (the folder name when the card has none)."""
        return _card_name(self)

    @property
    def endpoint(self) -> str:
        """The address of the main model's endpoint ("" for the embedded model)."""
        return str(getattr(self.resolved.provider, "base_url", "") or "")

    @property
    def leaf(self) -> str | None:
        """The active branch's last entry."""
        return self.chat.tree.leaf

    @property
    def busy(self) -> bool:
        """Whether a beat or an edit holds the chat in this process right now."""
        return self._busy.locked()

    @property
    def tidying(self) -> bool:
        """Whether the beat holding the chat is past its reply (its after-beat step runs): a beat or
        edit asked for now waits for it rather than failing with ``ChatBusy``."""
        return self._tidying.is_set()

    def branch_view(self) -> BranchView:
        """The chat as a mode's steps see it: the active branch, who plays, which model."""
        return BranchView(
            chat_id=self.chat_id,
            env=self.env,
            model=self.resolved.model,
            tree=self.chat.tree,
            append_custom=self.chat.append_custom,
            config_file=self.app.home.config_file,
            story_memory=self.story_memory,
            mode=self.mode,
        )

    def _story(self) -> Any:
        """The story memory the chat's mode reads for a beat (``BeatEnv.story``)."""
        play = self.app.mode(self.mode)
        return play.story(self.branch_view()) if play.story is not None else None

    def _observe(self, request: ChatRequest, purpose: str) -> None:
        """A request on its way out: into the running beat's record and to the app's hooks."""
        sent = SentRequest(request, purpose, self.resolved.model)
        beat = self._beat
        if beat is not None:
            beat.record.requests.append(sent)
        for hook in self.app.on_request:
            hook(sent)

    def file_stamp(self) -> tuple[int, int] | None:
        """(mtime, size) of the session file: a front notices another program's writes by it."""
        try:
            info = self.chat.path.stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def beat_records(self) -> list[beat_log.BeatRecord]:
        """The chat's last beats as logged beside the session file (the inspector's requests,
        generation times), token counts filled in."""
        if self._beats is None:
            self._beats = beat_log.load(self.chat.path)
        return [beat_log.counted(record) for record in self._beats]

    def _customs(self) -> list[dict[str, Any]]:
        """The branch's custom entries as a builder sees them (``BeatInput.custom_entries``)."""
        return [{"customType": e.body.get("customType"), "data": e.body.get("data")} for e in self.chat.tree.customs()]

    def _offered(self, tools: list[Tool], kind: str) -> list[Tool]:
        if self.env.embedded:
            return []  # the embedded model's automatic tool choice runs away
        if kind == "impersonate":
            return []  # each builder words the request itself (stage, tavern, plain)
        return tools

    def _stamped(self, message: dict[str, Any]) -> dict[str, Any]:
        """A message the loop records, as this chat keeps it (a group chat adds who spoke)."""
        return message

    def _user_message(self, text: str, play: PlayMode) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "user", "content": text, "name": self.env.user_name}
        if play.tags:  # words sent in work mode stay out of the story
            message["tags"] = list(play.tags)
        return message

    def _side_model(self) -> tuple[Provider, str]:
        """The side model for a mode's prepare step (the preset declaration's labeller)."""
        side = self.side_connection()
        return _Observed(side.provider, lambda request: self._observe(request, "declare")), side.model

    def side_connection(self) -> ResolvedProvider:
        """The chat's side model: ``[side_model]`` when configured, else the chat's own model."""
        return resolve_side(with_stored_key(self.app.home, self.settings), self.resolved)

    def side_call(self, cancel: threading.Event | None = None) -> SideCall:
        """The side model as a mode's steps call it (its requests recorded like the beat's); the
        connection is made on the first call.  *cancel*: the beat's stop event."""
        return _LazySideCall(self.side_connection, cancel, self._observe)

    def view(self, last: int | None = None, before: int | None = None, *, since: int | None = None) -> ChatView:
        """Everything a front shows of the chat (the web's chat page is drawn from it); *last*: only
        that many messages, ending before message number *before*; *since*: every message from that
        number on (see :mod:`.chat_page`)."""
        return chat_view(self, last, before, since)

    def variables(self) -> ChatVariables:
        """Every message's variables (per swipe) and the chat's, as SillyTavern numbers the messages."""
        return session_variables(self)

    def messages(self) -> list[ContextMessage]:
        """The active branch's messages (numbered from 0 for /edit, /delete, /branch)."""
        return [ContextMessage.from_entry(entry) for entry in self.chat.tree.messages()]

    def context(self) -> list[ContextMessage]:
        return self._context.build(self.chat.tree.path(), self.chat.tree.amended)

    def tree_rows(self) -> list[TreeRow]:
        return self.chat.tree.rows()

    def swipe_position(self) -> tuple[int, int]:
        return ops.swipe_position(self.chat.tree)

    def reload_card(self) -> None:
        """The card file was rewritten (a regex script switched, an apply): read it again."""
        self.env.card_data = _card_object(self.card.load_card())

    def reread(self) -> None:
        """Read the session file afresh (another program wrote it) and follow its branch's mode."""
        self.chat = ChatFile.open(self.card.chats_dir, self.chat_id)
        self._beats = None  # the other program logs its beats there too
        self.follow_branch()

    def follow_branch(self) -> None:
        """After the leaf moved (rewind, branch, goto, swipe, edit, a re-read file): the live mode is
        the one recorded on the new branch, as reopening the chat would give."""
        mode = _recorded_mode(self.chat) or self.start_mode
        if mode in self.app.modes:  # a mode recorded under a table that had it and this one has not
            self.mode = mode

    def set_persona(self, name: str) -> None:
        """Play another persona from the next beat on; recorded on the branch (earlier messages keep
        the names they were written under, as in SillyTavern)."""
        persona = load_persona(self.app.home.personas_dir, name)
        self.chat.append_custom(PERSONA_ENTRY_TYPE, {"name": persona.name})
        self.env.user_name = persona.name
        self.env.user_persona = persona.description

    def set_mode(self, mode: str) -> None:
        """Switch the chat's mode; recorded on the branch, so reopening (or rewinding) follows it."""
        self.app.mode(mode)
        if mode != self.mode:
            if self._held():  # a switch the model made during its beat
                self.chat.append_custom(MODE_ENTRY_TYPE, {"mode": mode})
            else:
                with self._holding():
                    self.chat.append_custom(MODE_ENTRY_TYPE, {"mode": mode})
        self.mode = mode

    # -- greeting ----------------------------------------------------------------------------------

    def add_greetings(self) -> None:
        data = self.env.card_fields
        name = self.env.char_name
        greetings = [str(data.get("first_mes") or "")]
        alternates = data.get("alternate_greetings")
        if isinstance(alternates, list):
            greetings += [str(g) for g in alternates if isinstance(g, str)]
        greetings = [g for g in greetings if g.strip()]
        first: str | None = None
        for text in greetings:
            self.chat.tree.set_leaf(None)
            text = self._greeting_text(text, name)
            greeting = {"role": "assistant", "content": text, "name": name, "tags": [GREETING_TAG]}
            entry = self.chat.append_message(greeting)
            first = first or entry.id
        if first is not None and len(greetings) > 1:
            self.chat.move_leaf(first)

    def _greeting_text(self, text: str, name: str) -> str:
        """A greeting as the chat keeps it: SillyTavern substitutes its macros when it adds the first
        message (``{{user}}``, ``{{char}}``, the legacy ``<USER>``/``<BOT>``, rolls …), with the
        macro engine of the card's SillyTavern release."""

        env = MacroEnv(user=self.env.user_name, char=name, card=None, variables=Variables(), random=live_random())
        new_engine = for_version(self.settings.st_version).new_macro_engine
        return expand(text, env, engine="new" if new_engine else "legacy")

    # -- playing -----------------------------------------------------------------------------------

    def play(
        self,
        action: str,
        text: str = "",
        *,
        step: int = 1,
        cancel: threading.Event | None = None,
        approver: Approver | None = None,
    ) -> Beat:
        """Start one beat: ``send`` (*text*), ``regenerate``, ``swipe`` (*step* -1 / 1: past the last
        reply a new one is generated), ``continue`` or ``impersonate`` (the user's next line,
        streamed, not saved).  The chat is claimed now (a second claimant gets ``ChatBusy``) and the
        user's message is written before this returns; the model runs as the beat is iterated.
        *cancel* stops it from another thread; *approver* answers approvals for :meth:`Beat.events`."""
        if action not in ACTIONS:
            raise BadInput(f"未知的动作 {action!r}（可用：{'、'.join(ACTIONS)}）")
        if action == "send" and not text.strip():
            raise BadInput("消息是空的")
        release = self._hold()
        try:
            start = self._begin(action, text, step)
        except BaseException:
            release()
            raise
        if start is None:  # a swipe to a reply already kept: nothing to generate
            release()
            return Beat(action, None)
        return Beat(action, _lifecycle(self, start, release), speaker=self.char_name, cancel=cancel,
                    approver=approver, release=release)  # fmt: skip

    def send(
        self, text: str, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent]:
        return self.play("send", text, cancel=cancel, approver=approver).events()

    def regenerate(
        self, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent]:
        return self.play("regenerate", cancel=cancel, approver=approver).events()

    def swipe(
        self, step: int, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent] | None:
        """Show the previous / next reply; past the last one a new reply is generated (returned events)."""
        beat = self.play("swipe", step=step, cancel=cancel, approver=approver)
        return beat.events() if beat.record.generated else None

    def continue_(
        self, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent]:
        return self.play("continue", cancel=cancel, approver=approver).events()

    def impersonate(self, *, cancel: threading.Event | None = None) -> Iterator[AgentEvent]:
        """Write the user's next line (streamed, not saved: the front offers it for sending)."""
        return self.play("impersonate", cancel=cancel).events()

    def _begin(self, action: str, text: str, step: int) -> _BeatStart | None:
        """The writes an action makes before the model is called, and what the beat then runs."""
        tree = self.chat.tree
        before = len(tree)
        if action == "send":
            # Written before the model is called: a failing beat never loses what the user wrote.
            self.chat.append_message(self._user_message(text, self.app.mode(self.mode)))
            return _BeatStart("send", text, before)
        if action == "swipe":
            plan = ops.plan_swipe(tree, step)
            if plan is not None:
                self.chat.apply(plan)
                self.follow_branch()
                return None
            action = "regenerate"
        if action == "regenerate":
            self.chat.apply(ops.plan_regenerate(tree))
            self.follow_branch()
            anchor = ops.last_user(self.chat.tree)
            return _BeatStart("regenerate", anchor.message.get("content", "") if anchor else "", before)
        if action == "continue":
            # SillyTavern's continue: the current swipe itself grows (its old text stays as its
            # revision: ``undo``); nothing written when nothing came.
            messages = tree.messages()
            if not messages or messages[-1].role != "assistant":
                raise BadInput("最后一条不是回复，没有可以续写的内容")
            return self._continue_start(messages[-1], before)
        return _BeatStart("impersonate", "", before, record=False)

    def _continue_start(self, last: Entry, before: int) -> _BeatStart:
        """Continue *last* (the branch's last reply), SillyTavern's way: the beat sees the whole
        history and what it writes extends *last* itself (its old text stays as its revision: ``undo``);
        nothing is written when nothing came."""
        prefix = str(last.message.get("content") or "")
        return _BeatStart("continue", "", before, history=self.context(), prefix=prefix, extends=last.id)

    def edit(self, index: int, text: str) -> None:
        with self._holding():
            self.chat.apply(ops.plan_edit(self.chat.tree, index, text, self.chat.new_id, utc_now()))
            self.follow_branch()

    def delete(self, index: int | list[int]) -> None:
        """Delete message *index*, or the messages at several (a new branch without them)."""
        with self._holding():
            if isinstance(index, list):
                plan = ops.plan_delete_many(self.chat.tree, index, self.chat.new_id, utc_now())
            else:
                plan = ops.plan_delete(self.chat.tree, index, self.chat.new_id, utc_now())
            self.chat.apply(plan)
            self.follow_branch()

    def insert_message(self, message: dict[str, Any], at: int | None = None) -> None:
        """*message* written into the chat with no reply (STscript's ``/send``, ``/sendas``, ``/sys``,
        ``/comment``): at the end, or before message *at* (a new branch, as an edit makes one)."""
        with self._holding():
            self.chat.apply(ops.plan_insert(self.chat.tree, at, message, self.chat.new_id, utc_now()))
            self.follow_branch()

    def save_chat_metadata(self, metadata: dict[str, Any]) -> None:
        """SillyTavern's chat metadata (chat variables, script injections, the Author's Note) for the
        branch from here on, as a tavern beat keeps it."""
        with self._holding():
            self.chat.append_custom(CHAT_METADATA_TYPE, metadata)

    def save_message_variables(self, entry_id: str, variables: Any) -> None:
        """TavernHelper's variables of one message (the entry its shown swipe is), as MVU keeps them,
        for the branch from here on (a card's script wrote them)."""
        with self._holding():
            self.chat.append_custom(MESSAGE_VARIABLES_TYPE, note_data(entry_id, variables=variables))

    def hide(self, first: int, last: int | None = None, *, hidden: bool = True) -> bool:
        """Hide messages *first* … *last* from the model, or show them again (SillyTavern's ``/hide``
        and ``/unhide``); ``False`` when none of them changes."""
        with self._holding():
            plan = ops.plan_hide(self.chat.tree, first, first if last is None else last, hidden)
            if plan is None:
                return False
            self.chat.apply(plan)
            self.follow_branch()
            return True

    def undo(self, index: int) -> None:
        """Message *index* back to its text before its latest continue (``BadInput`` when none)."""
        with self._holding():
            self.chat.apply(ops.plan_undo(self.chat.tree, index))

    def branch(self, index: int) -> None:
        with self._holding():
            self.chat.apply(ops.plan_branch(self.chat.tree, index))
            self.follow_branch()

    def goto(self, entry_id: str, *, deepest: bool = False) -> None:
        """Move the chat to *entry_id*; *deepest*: on to the newest end of the branch below it."""
        with self._holding():
            if entry_id not in self.chat.tree:
                raise NotFound(f"会话里没有条目 {entry_id}")
            self.chat.move_leaf(self.chat.tree.deepest_leaf(entry_id) if deepest else entry_id)
            self.follow_branch()

    def export_sillytavern(self) -> bytes:
        header = self.chat.header.get("st_header") if isinstance(self.chat.header.get("st_header"), dict) else {}
        created = st_create_date(self.chat.header)
        lines = export_chat(self.chat.tree, dict(header or {}), self.env.user_name, str(_card_name(self)), created)
        return write_chat_jsonl(TavernChat(lines[0], [TavernMessage(line) for line in lines[1:]]))

    # -- the beat ----------------------------------------------------------------------------------

    def _switch(self, mode: str) -> ModeSwitch:
        play = self.app.mode(mode)
        builder, tools = play.setup(self.env)
        self.set_mode(mode)
        if self.env.embedded:
            tools = []
        return ModeSwitch(play.tool_mode, builder, ToolRegistry(tools), list(play.tags))

    def _sandbox_judge(self) -> Judge:
        lists = self.settings.sandbox
        return make_sandbox_judge(lists.blacklist, lists.no_ask_prefixes)

    def _held(self) -> bool:
        return self._lock is not None and self._lock.held

    def _hold(self) -> Callable[[], None]:
        """Claim the chat for one beat or edit; returns the (idempotent) release.

        This session's own lock first (a second beat from another thread of this front), then the
        chat's cross-process lock; then what other processes appended is read in, so new entries
        join the chat where it really ends rather than forking a side branch off a stale leaf.
        """
        if not self._busy.acquire(blocking=False) and not (
            self._tidying.is_set() and self._busy.acquire(timeout=AFTER_BEAT_WAIT)
        ):
            raise ChatBusy("这段对话正在生成回复：等它结束，或先停止它")
        lock = self._lock or ChatLock(
            chat_lock_file(self.app.home, self.card.folder, self.chat.chat_id), self.chat.chat_id
        )
        try:
            lock.acquire()
        except BaseException:
            self._busy.release()
            raise
        self._lock = lock
        released = threading.Event()

        def release() -> None:
            if not released.is_set():
                released.set()
                self._tidying.clear()
                lock.release()
                self._busy.release()

        try:
            changed = self.chat.refresh()
            changed = recover(self._checkpoint_path(), self.chat, _card_name(self)) or changed
            if changed:
                self.follow_branch()
        except BaseException:
            release()
            raise
        return release

    def _checkpoint_path(self) -> Path:
        return checkpoint_file(self.app.home, self.card.folder, self.chat.chat_id)

    @contextlib.contextmanager
    def _holding(self) -> Iterator[None]:
        release = self._hold()
        try:
            yield
        finally:
            release()

    def _beat_events(
        self, start: _BeatStart, cancel: threading.Event, approver: Approver | None
    ) -> Iterator[AgentEvent]:
        """The mode's prepare step (its writes, each said as an event), then the loop's beat."""
        play = self.app.mode(self.mode)
        if start.record and play.prepare is not None:
            for line in play.prepare(self.env, self._side_model):
                yield WarningEvent(message=line)
        yield from self._start_beat(start, cancel, approver)

    def _after_beat(self, beat: Beat, done: DoneEvent) -> Iterator[AgentEvent]:
        """The chat's mode's after-beat step, once the reply is complete: ``reply_end`` first (a
        front may unlock its composer), then what the step has to say."""
        play = self.app.mode(self.mode)
        if play.after_beat is None:
            return
        beat.record.stop_reason = done.stop_reason
        work = play.after_beat(self.branch_view(), self.side_call(beat.cancel), beat.record)
        if work is None:
            return
        self._tidying.set()  # cleared when the chat is given back
        yield ReplyEndEvent(stop_reason=done.stop_reason, entry_id=done.entry_id)
        for warning in work:
            yield WarningEvent(message=warning)

    def _finish(self, beat: Beat, start: _BeatStart) -> None:
        """What the beat wrote, into its record; the beat log beside the session file."""
        record = beat.record
        written = [*start.extended, *self.chat.tree.ids_since(start.before)]
        record.entries = written
        if record.replies:
            record.replies[-1].entries = [i for i in written if self.chat.tree.get(i).role == "assistant"]
        if start.record and record.requests and not self.chat.in_memory:
            with contextlib.suppress(OSError, ValueError, PearError):  # a record, not the story
                logged = beat_log.log_beat(self.chat.path, record, beat.started)
                if self._beats is not None:
                    self._beats = [*self._beats, logged][-beat_log.KEEP :]

    def _recorder(self, start: _BeatStart) -> Recorder:
        """How the loop keeps a message: appended at the leaf; a continue's first reply extends the
        reply it continues instead (``ops.plan_continue``)."""
        chat = self.chat

        def record(message: dict[str, Any]) -> str:
            target = start.extends
            if target is not None and not start.extended and message.get("role") == "assistant":
                added = message.get("content") != start.prefix or message.get("reasoning") or message.get("tool_calls")
                if added:  # nothing came: nothing is written
                    chat.apply(ops.plan_continue(chat.tree, chat.tree.get(target), self._stamped(message)))
                    start.extended.append(target)
                return target
            return chat.append_message(self._stamped(message)).id

        return record

    def _start_beat(
        self, start: _BeatStart, cancel: threading.Event, approver: Approver | None
    ) -> Iterator[AgentEvent]:
        kind, user_text, record = start.kind, start.user_text, start.record
        play = self.app.mode(self.mode)
        builder, tool_list = play.setup(self.env)
        tool_list = self._offered(tool_list, kind)
        chat = self.chat
        customs = self._customs()

        def append_custom(custom_type: str, data: Any) -> None:
            chat.append_custom(custom_type, data)
            customs.append({"customType": custom_type, "data": data})

        mode = play.tool_mode
        ctx = ToolContext(
            home=self.app.home.root,
            card_dir=self.card.path,
            chat_id=chat.chat_id,
            user_text=user_text,
            thinking=self.env.thinking,
            mode=mode,
            custom_entries=customs,
            append_custom=append_custom if record else (lambda _t, _d: None),
        )
        # The streamed text is checkpointed until the loop records it (a crash keeps it).
        checkpoint = StreamCheckpoint(self._checkpoint_path(), lambda: chat.tree.leaf)
        settings = BeatSettings(
            provider=self.provider,
            builder=builder,
            tools=ToolRegistry(tool_list),
            thinking=self.env.thinking,
            mode=mode,
            kind=kind,
            model=self.resolved.model,
            judge=self.app.judge or self._sandbox_judge(),
            approver=approver,
            record_card_grant=self.app.record_card_grant or make_card_grant_recorder(self.app.home, self.card.folder),
            record=_recording(self._recorder(start), checkpoint) if record else no_record,
            cancel=cancel,
            context=ctx,
            continue_prefix=start.prefix,
            tags=list(play.tags),
            switch_mode=self._switch if record else None,
        )
        events = run_beat(start.history if start.history is not None else self.context(), settings)
        return _checkpointed(events, checkpoint) if record else events


class _BeatStart(msgspec.Struct):
    """What :meth:`ChatSession.play` set up for the loop: the kind of beat, the user's words, the
    number of entries before the beat (what it writes comes after), and for ``continue`` the
    history, the reply being continued (its text, its id) and whether it was extended."""

    kind: BeatKind
    user_text: str
    before: int
    record: bool = True
    history: list[ContextMessage] | None = None
    prefix: str = ""
    before_release: Callable[[], None] | None = None
    extends: str | None = None
    extended: list[str] = msgspec.field(default_factory=list)


def _lifecycle(
    session: ChatSession, start: _BeatStart, release: Callable[[], None]
) -> Callable[[Beat, Approver | None], Iterator[AgentEvent]]:
    """The beat as every front gets it: the mode's prepare step and the loop, ``done`` held back
    while the mode's after-beat step runs, then the beat's record and log, and the chat given back."""

    def run(beat: Beat, approver: Approver | None) -> Iterator[AgentEvent]:
        session._beat = beat
        done: DoneEvent | None = None
        try:
            events = session._beat_events(start, beat.cancel, approver)
            if session.app.mode(session.mode).hides_update_blocks:
                events = without_update_blocks(events)
            for event in events:
                if isinstance(event, DoneEvent):
                    done = event
                    continue
                yield event
            beat.record.seconds = round(time.time() - beat.started, 2)  # the reply's time
            if done is not None and start.record:
                yield from session._after_beat(beat, done)
            if done is not None:
                yield done
        finally:
            session._beat = None
            try:
                if start.before_release is not None:
                    start.before_release()
                session._finish(beat, start)
            finally:
                release()

    return run


class _Observed:
    """A provider whose requests are seen on their way out (``ChatSession._observe``); everything
    else is the inner provider's (``inner``: the chain ``providers.sampled.retune`` walks)."""

    def __init__(self, inner: Provider, seen: Callable[[ChatRequest], None]) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "provider")
        self._seen = seen

    def stream(self, request: ChatRequest, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        self._seen(request)
        return self.inner.stream(request, cancel)

    def list_models(self) -> list[str]:
        return self.inner.list_models()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _LazySideCall:
    """The chat's side call, its connection made on first use (a beat that needs none makes none)."""

    def __init__(
        self,
        connect: Callable[[], ResolvedProvider],
        cancel: threading.Event | None,
        observe: Callable[[ChatRequest, str], None],
    ) -> None:
        self._connect = connect
        self._cancel = cancel
        self._observe = observe
        self._call: ProviderSideCall | None = None

    def __call__(self, system: str, user: str, max_tokens: int, *, purpose: str = "side") -> str:
        if self._call is None:
            side = self._connect()
            self._call = ProviderSideCall(
                side.provider, side.model, side_thinking(side.thinking), self._cancel, self._observe
            )
        return self._call(system, user, max_tokens, purpose=purpose)

    def stopped(self) -> bool:
        return self._cancel is not None and self._cancel.is_set()


def _recording(record: Recorder, checkpoint: StreamCheckpoint) -> Recorder:
    """*record*, then the checkpoint of the streamed text is dropped (the chat holds the text now)."""

    def recorded(message: dict[str, Any]) -> str:
        entry_id = record(message)
        checkpoint.recorded()
        return entry_id

    return recorded


Recorder = Callable[[dict[str, Any]], str]


def _checkpointed(events: Iterator[AgentEvent], checkpoint: StreamCheckpoint) -> Iterator[AgentEvent]:
    for event in events:
        if isinstance(event, TextDeltaEvent):
            checkpoint.add(text=event.text)
        elif isinstance(event, ThinkingDeltaEvent):
            checkpoint.add(reasoning=event.text)
        yield event


def _card_name(session: ChatSession) -> str:
    return session.env.char_name


def thinking_level(value: str) -> ThinkingLevel:
    """A thinking level as a front was given it (``--thinking``): off, minimal, low, medium, high or
    xhigh, checked."""
    return parse_level(value)


def st_create_date(header: dict[str, Any]) -> str:
    """ST's ``create_date`` for a chat started here: its session header's timestamp, ST-formatted."""
    try:
        created = datetime.fromisoformat(str(header.get("timestamp") or "").replace("Z", "+00:00"))
    except ValueError:
        return ""
    return format_create_date(created.astimezone())
