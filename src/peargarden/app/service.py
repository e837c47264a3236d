"""The one service API the fronts call: open a card, start or continue a chat, and play it.

    app = PearApp(Home.resolve())
    chat = app.new_chat("青梧")                   # or app.open_chat("青梧", chat_id) / app.latest_chat(...)
    for event in chat.send("掌柜可还记得怀瑾公子？"):
        ...                                        # peargarden.agent.events
    chat.regenerate(); chat.swipe(-1); chat.continue_(); chat.impersonate()
    chat.edit(2, "新的话"); chat.delete(3); chat.branch(1); chat.tree_rows()

Every play method returns an iterator of agent events ending with ``done``; the user's message is
written to the session before the model is called.  Pass ``cancel`` (a ``threading.Event``) to stop a
beat from another thread and ``approver`` to answer tool approvals.

One beat or edit per chat at a time, across processes: each one first takes the chat's lock
(:mod:`peargarden.workspace.chat_lock`; a second claimant gets ``ChatBusy``, a ``ConflictError``)
and reads what other processes appended meanwhile, so its entries join the chat where it really ends.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from peargarden.agent.approvals import Approver, CardGrantRecorder, Judge
from peargarden.agent.events import AgentEvent, TextDeltaEvent, ThinkingDeltaEvent, WarningEvent
from peargarden.agent.loop import BeatInput, BeatKind, BeatSettings, BuiltRequest, ModeSwitch, run_beat
from peargarden.agent.record import no_record
from peargarden.agent.thinking import parse_level
from peargarden.agent.tools import Tool, ToolContext, ToolRegistry
from peargarden.app.sandbox_judge import make_card_grant_recorder, make_sandbox_judge
from peargarden.errors import BadInput, NotFound, StorageError
from peargarden.formats import TavernChat, TavernMessage, format_create_date, read_chat_jsonl, write_chat_jsonl
from peargarden.modes.base import MODE_ENTRY_TYPE, BeatEnv, PlayMode
from peargarden.modes.stage import memory as bookkeeping
from peargarden.modes.stage.preset import Labeller, provider_labeller
from peargarden.modes.table import MODES
from peargarden.providers.base import ChatRequest, Provider, ThinkingLevel
from peargarden.sessions import TreeRow, ops
from peargarden.sessions.context import ContextMemo, ContextMessage
from peargarden.sessions.entries import Entry
from peargarden.sessions.sillytavern import export_chat, import_chat
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.chat_lock import ChatBusy, ChatLock, chat_lock_file
from peargarden.workspace.chats import ChatFile, branch_mode, last_written, list_chats, recorded_mode, utc_now
from peargarden.workspace.config import Settings, load_settings
from peargarden.workspace.home import Home

from .checkpoints import StreamCheckpoint, checkpoint_file, recover
from .connections import Connection, ResolvedProvider, resolve_provider, resolve_side
from .personas import PERSONA_ENTRY_TYPE, choose_persona, load_persona, recorded_persona
from .stored_keys import with_stored_key

DEFAULT_CARD = "青梧"


@dataclass
class ChatOptions:
    """Per-chat choices a front may override (``None`` = from config / card / defaults)."""

    mode: str | None = None
    thinking: str | None = None
    persona: str | None = None
    connection: Connection | None = None


@dataclass
class PearApp:
    home: Home
    # Tests and the bench inject a provider; None: resolved from config.toml (plus keys stored from
    # the web's settings page) and the front's connection (see app.connections).
    provider_factory: Callable[[Settings, Connection | None], ResolvedProvider] | None = None
    # Wraps every provider the app builds the standard way (the web records requests for its inspector).
    wrap_provider: Callable[[Provider], Provider] | None = None
    # None: the sandbox judges every tool call (lists from config.toml) and "allow for this card"
    # answers are written to the card's 卡.json.
    judge: Judge | None = None
    record_card_grant: CardGrantRecorder | None = None
    # Story memory (scene notes, compaction, card memory; see modes.stage.memory).  None = on when the
    # side model is not the embedded demo model and the app resolves models itself or a side_model is
    # configured (an injected test provider is not spent on side calls unless asked).
    story_memory: bool | None = None
    # The ways to play, by name (the fronts use the standard table; tests pass their own).
    modes: Mapping[str, PlayMode] = field(default_factory=lambda: MODES)

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
        resolved = resolve_provider(with_stored_key(self.home, settings), connection)
        if self.wrap_provider is not None:
            resolved.provider = self.wrap_provider(resolved.provider)
        return resolved

    def side_labeller(self) -> Labeller:
        """The side model (``[side_model]``, else the main one) as the preset declaration's labeller."""
        side = resolve_side(with_stored_key(self.home, load_settings(self.home.config_file)), None)
        return provider_labeller(side.provider, side.model)

    def card(self, name: str | None = None) -> CardFolder:
        return open_card(self.home, name or DEFAULT_CARD)

    def settings(self, card: CardFolder) -> Settings:
        return card.effective_settings(load_settings(self.home.config_file))

    def list_chats(self, card_name: str | None = None) -> list[ChatFile]:
        card = self.card(card_name)
        return [ChatFile.open(card.chats_dir, chat_id) for chat_id in list_chats(card.chats_dir)]

    # -- chats -------------------------------------------------------------------------------------

    def new_chat(self, card_name: str | None = None, options: ChatOptions | None = None) -> ChatSession:
        options = options or ChatOptions()
        card = self.card(card_name)
        settings = self.settings(card)
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
        self, card_name: str | None = None, options: ChatOptions | None = None, *, small_model: bool | None = None
    ) -> ChatSession:
        """A new chat as :meth:`new_chat` would start it (greetings included) that lives only in
        memory: its :meth:`ChatSession.preview` is the first beat a new chat would send, and nothing
        is written.  A dry run shows what it is asked for: an explicit ``options.thinking`` or
        *small_model* (the small-model profile on or off) wins over what the model could do."""
        options = options or ChatOptions()
        card = self.card(card_name)
        settings = self.settings(card)
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
        settings = self.settings(card)
        header = chat.header
        mode = self._mode(settings, header, options, chat)
        resolved = resolved or self.resolve(settings, options.connection)
        if resolved.embedded:
            thinking: ThinkingLevel = "off"
        else:
            thinking = parse_level(options.thinking or resolved.thinking or "medium")
        if resolved.embedded and options.thinking and options.thinking != "off":
            thinking = "off"  # the embedded model cannot think; the stage then sends lore as bodies
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
        session.story_memory = bookkeeping.story_memory_on(self, settings, resolved)
        if session.story_memory:
            env.story = lambda: bookkeeping.session_story_view(session)
        else:
            # No summaries or scene notes, but the stage's token budget still cuts the history.
            env.story = lambda: bookkeeping.budget_view(session)
        return session

    def _mode(
        self, settings: Settings, header: dict[str, Any], options: ChatOptions, chat: ChatFile | None = None
    ) -> str:
        recorded = _recorded_mode(chat) if chat is not None else ""
        mode = options.mode or recorded or _start_mode(settings, header)
        self.mode(mode)  # unknown modes fail here, with the list of known ones
        return mode


def _start_mode(settings: Settings, header: dict[str, Any]) -> str:
    return str(header.get("mode") or settings.mode or "stage")


chat_mode = branch_mode  # the mode a chat is in on its active branch (see workspace.chats)
_recorded_mode = recorded_mode


def _card_object(card: Any) -> dict[str, Any]:
    from peargarden.formats import card_to_object

    obj = card_to_object(card, "v3")
    return obj if isinstance(obj, dict) else {}


@dataclass(frozen=True)
class ChatView:
    """What a front draws of a chat: read from the session, nothing else to reach into."""

    card: str  # the card's folder name
    char_name: str  # the card's character name (the folder name when the card has none)
    card_data: dict[str, Any]  # the card object (V2/V3), for display-only regex scripts and the like
    chat_id: str
    mode: str
    modes: list[str]  # the app's mode table, in order
    entries: list[Entry]  # the active branch's messages, numbered from 0 as edit/delete/branch count
    tree: list[TreeRow]
    leaf: str | None
    swipe: tuple[int, int]  # (position, count) of the last reply among its siblings
    warnings: list[str]  # what reading the session file found
    model: str
    persona: str  # the user's name in this chat


@dataclass
class Preview:
    """What the next beat would send: the first request, its tools and the warnings it would show."""

    mode: str
    request: ChatRequest
    tools: list[Tool]
    warnings: list[str]
    # What the mode's builder shows besides the request (tavern: SillyTavern's "body" and "assembly").
    inspect: dict[str, Any] = field(default_factory=dict)


@dataclass
class ChatSession:
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
    # Scene notes and compaction after each beat (see modes.stage.memory.story_memory_on).
    story_memory: bool = False
    custom_hooks: list[Callable[[ToolContext], None]] = field(default_factory=list)
    # Wraps the side connection built for story memory when ``[side_model]`` names one (the web
    # records its requests for the inspector); without a side model the chat's own provider is used.
    wrap_side_provider: Callable[[Any], Any] | None = None
    _context: ContextMemo = field(default_factory=ContextMemo)
    _busy: threading.Lock = field(default_factory=threading.Lock)
    _lock: ChatLock | None = None

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

    def _customs(self) -> list[dict[str, Any]]:
        """The branch's custom entries as a builder sees them (``BeatInput.custom_entries``)."""
        return [{"customType": e.body.get("customType"), "data": e.body.get("data")} for e in self.chat.tree.customs()]

    def _offered(self, tools: list[Tool], kind: str) -> list[Tool]:
        if self.env.embedded:
            return []  # the embedded model's automatic tool choice runs away
        if kind == "impersonate":
            return []  # each builder words the request itself (stage, tavern, plain)
        return tools

    def _user_message(self, text: str, play: PlayMode) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "user", "content": text, "name": self.env.user_name}
        if play.tags:  # words sent in work mode stay out of the story
            message["tags"] = list(play.tags)
        return message

    def _side_model(self) -> tuple[Provider, str]:
        side = self.side_connection()
        return side.provider, side.model

    def side_connection(self) -> ResolvedProvider:
        """The chat's side model: ``[side_model]`` when configured, else the chat's own model."""
        side = resolve_side(with_stored_key(self.app.home, self.settings), self.resolved)
        if side.provider is not self.resolved.provider and self.wrap_side_provider is not None:
            side.provider = self.wrap_side_provider(side.provider)
        return side

    def view(self) -> ChatView:
        """Everything a front shows of the chat (the web's chat page is drawn from it)."""
        tree = self.chat.tree
        return ChatView(
            card=self.card.folder,
            char_name=_card_name(self),
            card_data=self.env.card_data,
            chat_id=self.chat_id,
            mode=self.mode,
            modes=list(self.app.modes),
            entries=list(tree.messages()),
            tree=self.tree_rows(),
            leaf=tree.leaf,
            swipe=self.swipe_position(),
            warnings=list(self.chat.warnings),
            model=self.resolved.model,
            persona=self.env.user_name,
        )

    def messages(self) -> list[ContextMessage]:
        """The active branch's messages (numbered from 0 for /edit, /delete, /branch)."""
        return [ContextMessage.from_entry(entry) for entry in self.chat.tree.messages()]

    def message_rows(self) -> list[dict[str, Any]]:
        """The active branch for a front to draw: each message with its entry id, number and its place
        among its siblings (``sibling``: 1-based position, ``siblings``: count) for swipe arrows."""
        rows: list[dict[str, Any]] = []
        for number, entry in enumerate(self.chat.tree.messages()):
            kin = self.chat.tree.siblings(entry.id)
            row: dict[str, Any] = {"n": number, "id": entry.id, **entry.message}
            row["sibling"], row["siblings"] = kin.index(entry) + 1, len(kin)
            rows.append(row)
        return rows

    def context(self) -> list[ContextMessage]:
        return self._context.build(self.chat.tree.path())

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
        data = (
            self.env.card_data.get("data") if isinstance(self.env.card_data.get("data"), dict) else self.env.card_data
        )
        assert isinstance(data, dict)
        name = str(data.get("name") or self.card.folder)
        greetings = [str(data.get("first_mes") or "")]
        alternates = data.get("alternate_greetings")
        if isinstance(alternates, list):
            greetings += [str(g) for g in alternates if isinstance(g, str)]
        greetings = [g for g in greetings if g.strip()]
        first: str | None = None
        for text in greetings:
            self.chat.tree.set_leaf(None)
            text = self._greeting_text(text, name)
            entry = self.chat.append_message({"role": "assistant", "content": text, "name": name, "tags": ["greeting"]})
            first = first or entry.id
        if first is not None and len(greetings) > 1:
            self.chat.move_leaf(first)

    def _greeting_text(self, text: str, name: str) -> str:
        """A greeting as the chat keeps it: SillyTavern substitutes its macros when it adds the first
        message (``{{user}}``, ``{{char}}``, the legacy ``<USER>``/``<BOT>``, rolls …), with the
        macro engine of the card's SillyTavern release."""
        from peargarden.tavern.version import for_version
        from peargarden.text.macro_dispatch import expand
        from peargarden.text.macros import MacroEnv, Variables
        from peargarden.text.rolls import live_random

        env = MacroEnv(user=self.env.user_name, char=name, card=None, variables=Variables(), random=live_random())
        new_engine = for_version(self.settings.st_version).new_macro_engine
        return expand(text, env, engine="new" if new_engine else "legacy")

    # -- playing -----------------------------------------------------------------------------------

    def send(
        self, text: str, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent]:
        if not text.strip():
            raise BadInput("消息是空的")
        release = self._hold()
        try:
            # Written before the model is called: a failing beat never loses what the user wrote.
            self.chat.append_message(self._user_message(text, self.app.mode(self.mode)))
            return self._beat(release, "send", text, cancel=cancel, approver=approver)
        except BaseException:
            release()
            raise

    def regenerate(
        self, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent]:
        release = self._hold()
        try:
            return self._regenerate(release, cancel, approver)
        except BaseException:
            release()
            raise

    def _regenerate(
        self, release: Callable[[], None], cancel: threading.Event | None, approver: Approver | None
    ) -> Iterator[AgentEvent]:
        self.chat.apply(ops.plan_regenerate(self.chat.tree))
        self.follow_branch()
        anchor = ops.last_user(self.chat.tree)
        return self._beat(
            release,
            "regenerate",
            anchor.message.get("content", "") if anchor else "",
            cancel=cancel,
            approver=approver,
        )

    def swipe(
        self, step: int, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent] | None:
        """Show the previous / next reply; past the last one a new reply is generated (returned events)."""
        release = self._hold()
        try:
            plan = ops.plan_swipe(self.chat.tree, step)
            if plan is None:
                return self._regenerate(release, cancel, approver)
            self.chat.apply(plan)
            self.follow_branch()
        except BaseException:
            release()
            raise
        release()
        return None

    def continue_(
        self, *, cancel: threading.Event | None = None, approver: Approver | None = None
    ) -> Iterator[AgentEvent]:
        release = self._hold()
        try:
            messages = self.chat.tree.messages()
            if not messages or messages[-1].role != "assistant":
                raise BadInput("最后一条不是回复，没有可以续写的内容")
            last = messages[-1]
            history = self.context()
            original_leaf = self.chat.tree.leaf
            self.chat.move_leaf(last.parent_id)

            def restore() -> None:
                if self.chat.tree.leaf == last.parent_id:  # nothing was written: keep the original reply
                    self.chat.move_leaf(original_leaf)

            return self._beat(
                release,
                "continue",
                "",
                cancel=cancel,
                approver=approver,
                history=history,
                prefix=str(last.message.get("content") or ""),
                before_release=restore,
            )
        except BaseException:
            release()
            raise

    def impersonate(self, *, cancel: threading.Event | None = None) -> Iterator[AgentEvent]:
        """Write the user's next line (streamed, not saved: the front offers it for sending)."""
        release = self._hold()
        try:
            return self._beat(release, "impersonate", "", cancel=cancel, approver=None, record=False)
        except BaseException:
            release()
            raise

    def edit(self, index: int, text: str) -> None:
        with self._holding():
            self.chat.apply(ops.plan_edit(self.chat.tree, index, text, self.chat.new_id, utc_now()))
            self.follow_branch()

    def delete(self, index: int) -> None:
        with self._holding():
            self.chat.apply(ops.plan_delete(self.chat.tree, index, self.chat.new_id, utc_now()))
            self.follow_branch()

    def hide(self, first: int, last: int | None = None, *, hidden: bool = True) -> bool:
        """Hide messages *first* … *last* from the model, or show them again (SillyTavern's ``/hide``
        and ``/unhide``); ``False`` when none of them changes."""
        with self._holding():
            plan = ops.plan_hide(self.chat.tree, first, first if last is None else last, hidden,
                                 self.chat.new_id, utc_now())  # fmt: skip
            if plan is None:
                return False
            self.chat.apply(plan)
            self.follow_branch()
            return True

    def branch(self, index: int) -> None:
        with self._holding():
            self.chat.apply(ops.plan_branch(self.chat.tree, index))
            self.follow_branch()

    def goto(self, entry_id: str) -> None:
        with self._holding():
            if entry_id not in self.chat.tree:
                raise NotFound(f"会话里没有条目 {entry_id}")
            self.chat.move_leaf(entry_id)
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
        if not self._busy.acquire(blocking=False):
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

    def _beat(
        self,
        release: Callable[[], None],
        *args: Any,
        before_release: Callable[[], None] | None = None,
        **kwargs: Any,
    ) -> Iterator[AgentEvent]:
        """The beat's events; the chat stays claimed until they are exhausted or dropped."""
        events = self._beat_events(*args, **kwargs)

        def finish() -> None:
            try:
                if before_release is not None:
                    before_release()
            finally:
                release()

        def run() -> Iterator[AgentEvent]:
            try:
                yield from events
            finally:
                finish()

        guarded = run()
        weakref.finalize(guarded, release)  # a caller that never iterates must not lock the chat
        return guarded

    def _beat_events(
        self,
        kind: BeatKind,
        user_text: str,
        *,
        cancel: threading.Event | None,
        approver: Approver | None,
        record: bool = True,
        history: list[ContextMessage] | None = None,
        prefix: str = "",
    ) -> Iterator[AgentEvent]:
        play = self.app.mode(self.mode)
        start = (kind, user_text, cancel, approver, record, history, prefix)
        if record and play.prepare is not None:
            return self._prepared(play, start)
        return self._start_beat(*start)

    def _prepared(self, play: PlayMode, start: tuple[Any, ...]) -> Iterator[AgentEvent]:
        """The mode's prepare step (its writes, each said as an event), then the beat."""
        assert play.prepare is not None
        for line in play.prepare(self.env, self._side_model):
            yield WarningEvent(message=line)
        yield from self._start_beat(*start)

    def _start_beat(
        self,
        kind: BeatKind,
        user_text: str,
        cancel: threading.Event | None,
        approver: Approver | None,
        record: bool,
        history: list[ContextMessage] | None,
        prefix: str,
    ) -> Iterator[AgentEvent]:
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
        for hook in self.custom_hooks:
            hook(ctx)
        # The streamed text is checkpointed until the loop records it (a crash keeps it).
        checkpoint = StreamCheckpoint(self._checkpoint_path(), lambda: chat.tree.leaf)
        settings = BeatSettings(
            provider=self.resolved.provider,
            builder=builder,
            tools=ToolRegistry(tool_list),
            thinking=self.env.thinking,
            mode=mode,
            kind=kind,
            model=self.resolved.model,
            judge=self.app.judge or self._sandbox_judge(),
            approver=approver,
            record_card_grant=self.app.record_card_grant or make_card_grant_recorder(self.app.home, self.card.folder),
            record=_recording(lambda message: chat.append_message(message).id, checkpoint) if record else no_record,
            cancel=cancel or threading.Event(),
            context=ctx,
            continue_prefix=prefix,
            tags=list(play.tags),
            switch_mode=self._switch if record else None,
        )
        events = run_beat(history if history is not None else self.context(), settings)
        if record:
            events = _checkpointed(events, checkpoint)
        # Scene notes and compaction run before ``done`` (a one-shot front must not lose them).
        if not (record and self.story_memory):
            return events
        return bookkeeping.with_bookkeeping(self, kind, events, cancel=settings.cancel)


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
    data = session.env.card_data.get("data")
    source = data if isinstance(data, dict) else session.env.card_data
    return str(source.get("name") or session.card.folder)


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
