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
chat's mode runs its steps around it, and the beat log beside the session file is written when it
ends (:mod:`.lifecycle`, shared with group chats).  ``send``, ``regenerate``, ``swipe``,
``continue_`` and ``impersonate`` are the same beat's events on the caller's thread.

A :class:`ChatSession` is a card's chat: the reads and edits every chat has (:class:`.chat_core.ChatCore`)
plus what a card's chat does itself — plan a beat, greet, preview the next request, draw its page,
export it to SillyTavern.  A group's chat is :class:`.group_session.GroupSession`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from peargarden.agent.approvals import Approver
from peargarden.agent.events import AgentEvent
from peargarden.agent.thinking import parse_level
from peargarden.errors import BadInput
from peargarden.formats import TavernChat, TavernMessage, read_chat_jsonl, write_chat_jsonl
from peargarden.modes.base import BeatEnv
from peargarden.providers.base import ThinkingLevel
from peargarden.sessions import ops
from peargarden.sessions.entries import GREETING_TAG
from peargarden.sessions.sillytavern import export_chat, import_chat
from peargarden.sessions.variables import chat_metadata
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chat_lock import chat_lock_file
from peargarden.workspace.chats import ChatFile, last_written, list_chats, recorded_mode, utc_now
from peargarden.workspace.config import Settings

from ..settings.connections import ResolvedProvider
from .beat import Beat
from .chat_core import AFTER_BEAT_WAIT, ChatCore, Preview, recover_after_crash, user_message
from .chat_records import st_create_date
from .chat_variables import ChatVariables, chat_variables_of
from .checkpoints import checkpoint_file
from .lifecycle import (
    ACTIONS,
    Action,
    BeatStart,
    OneSpeaker,
    Speaker,
    check_action,
    continue_start,
    lifecycle,
)
from .opening import (
    DEFAULT_CARD,
    AppCore,
    ChatOptions,
    RequestHook,
    chat_header,
    chat_mode,
    chat_player,
    greeting_text,
)

if TYPE_CHECKING:
    from .chat_page import ChatView

__all__ = [
    "ACTIONS",
    "AFTER_BEAT_WAIT",
    "DEFAULT_CARD",
    "Action",
    "ChatOptions",
    "ChatSession",
    "PearApp",
    "Preview",
    "RequestHook",
    "thinking_level",
]


class PearApp(AppCore):
    """The app: its parts every chat uses (:class:`.opening.AppCore`) and a card's chats."""

    def list_chats(self, card_name: str | None = None) -> list[ChatFile]:
        card = self.card(card_name)
        return [ChatFile.open(card.chats_dir, chat_id) for chat_id in list_chats(card.chats_dir)]

    def new_chat(self, card_name: str | None = None, options: ChatOptions | None = None) -> ChatSession:
        options = options or ChatOptions()
        card = self.card(card_name)
        settings = self.settings(card, options)
        card.load_card()  # a damaged card fails here, before a chat folder is made
        header = chat_header("card", card.folder, self._mode(settings, None, options), options)
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
        header = chat_header("card", card.folder, self._mode(settings, None, options), options)
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
        session = self._session(card, ChatFile.open(card.chats_dir, chat_id), options or ChatOptions())
        recover_after_crash(session)
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
            mode=self._mode(settings, None, ChatOptions()),
            imported=filename,
            st_header=imported.header,
        )
        return self._session(card, chat, ChatOptions(), resolved)

    def _session(
        self, card: CardFolder, chat: ChatFile, options: ChatOptions, resolved: ResolvedProvider | None = None
    ) -> ChatSession:
        """The opening recipe (:mod:`.opening`) for a card's chat."""
        settings = self.settings(card, options)
        resolved = resolved or self.resolve(settings, options.connection)
        player = chat_player(self.home, chat, options, card.settings().get("persona"), settings, resolved)
        env = player.env(BeatEnv, card, settings)
        session = ChatSession(
            self,
            card,
            chat,
            settings,
            resolved,
            self._mode(settings, chat, options),
            env,
            lock_file=chat_lock_file(self.home, card.folder, chat.chat_id),
            checkpoint=checkpoint_file(self.home, card.folder, chat.chat_id),
            start_mode=self._start_mode(settings, chat, options),
            story_memory=self.keeps_story_memory(settings, resolved),
        )
        env.story = session.story_of(env)
        return session

    def _start_mode(self, settings: Settings, chat: ChatFile, options: ChatOptions) -> str:
        """The mode of a branch that recorded no change: the front's, the header's, config.toml's."""
        named = str(chat.header.get("mode") or "")
        return chat_mode(self.modes, self.mode, asked=options.mode, recorded=named, configured=settings.mode)

    def _mode(self, settings: Settings, chat: ChatFile | None, options: ChatOptions) -> str:
        """The mode a card's chat opens in (unknown modes fail here, with the list of known ones)."""
        return chat_mode(
            self.modes,
            self.mode,
            asked=options.mode,
            recorded=recorded_mode(chat) if chat is not None else "",
            named=chat.header.get("mode") if chat is not None else None,
            configured=settings.mode,
        )


class ChatSession(ChatCore):
    """A card's chat (see the module docstring); the reads and edits are :class:`ChatCore`'s."""

    @property
    def char_name(self) -> str:
        """The card's character name (the folder name when the card has none)."""
        return self.env.char_name

    def swipe_position(self) -> tuple[int, int]:
        return ops.swipe_position(self.chat.tree)

    def view(self, last: int | None = None, before: int | None = None, *, since: int | None = None) -> ChatView:
        """Everything a front shows of the chat (the web's chat page is drawn from it); *last*: only
        that many messages, ending before message number *before*; *since*: every message from that
        number on (see :mod:`.chat_page`)."""
        from .chat_page import chat_view  # the page model, on demand: a beat never draws it

        return chat_view(self.page_source(self.char_name), last, before, since)

    def variables(self) -> ChatVariables:
        """Every message's variables (per swipe) and the chat's, as SillyTavern numbers the messages."""
        return chat_variables_of(self.chat.tree, self.chat.header, self.card, self.settings)

    def export_sillytavern(self) -> bytes:
        header = self.chat.header.get("st_header") if isinstance(self.chat.header.get("st_header"), dict) else {}
        created = st_create_date(self.chat.header)
        lines = export_chat(self.chat.tree, dict(header or {}), self.env.user_name, self.char_name, created)
        return write_chat_jsonl(TavernChat(lines[0], [TavernMessage(line) for line in lines[1:]]))

    # -- greeting ----------------------------------------------------------------------------------

    def add_greetings(self) -> None:
        data = self.env.card.data
        name = self.env.char_name
        greetings = [str(data.get("first_mes") or "")]
        alternates = data.get("alternate_greetings")
        if isinstance(alternates, list):
            greetings += [str(g) for g in alternates if isinstance(g, str)]
        greetings = [g for g in greetings if g.strip()]
        first: str | None = None
        for text in greetings:
            self.chat.tree.set_leaf(None)
            content = greeting_text(self.env.user_name, self.settings, text, name)
            greeting = {"role": "assistant", "content": content, "name": name, "tags": [GREETING_TAG]}
            entry = self.chat.append_message(greeting)
            first = first or entry.id
        if first is not None and len(greetings) > 1:
            self.chat.move_leaf(first)

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
        check_action(action)
        if action == "send" and not text.strip():
            raise BadInput("消息是空的")
        release = self.hold()
        try:
            start = self._begin(action, text, step)
        except BaseException:
            release()
            raise
        if start is None:  # a swipe to a reply already kept: nothing to generate
            release()
            return Beat(action, None)
        turns = OneSpeaker(Speaker(self.env, self.checkpoint))
        return Beat(action, lifecycle(self, start, turns, release), speaker=self.char_name, cancel=cancel,
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

    def _begin(self, action: str, text: str, step: int) -> BeatStart | None:
        """The writes an action makes before the model is called, and what the beat then runs."""
        tree = self.chat.tree
        before = len(tree)
        if action == "send":
            # Written before the model is called: a failing beat never loses what the user wrote.
            self.chat.append_message(user_message(self.env, text, self.app.mode(self.mode)))
            return BeatStart("send", text, before)
        if action == "swipe":
            plan = ops.plan_swipe(tree, step)
            if plan is not None:
                self.chat.apply(plan)
                self.follow_branch()
                return None
            action = "regenerate"
        if action == "regenerate":
            kept = chat_metadata(self.customs()).get("variables")
            self.chat.apply(ops.plan_regenerate(tree))
            self.follow_branch()
            anchor = ops.last_user(self.chat.tree)
            # The new swipe keeps the chat variables the replies before it wrote (SillyTavern's one
            # chat_metadata per chat); a branch the player makes elsewhere keeps its own.
            carried = (
                kept if isinstance(kept, dict) and kept != chat_metadata(self.customs()).get("variables") else None
            )
            text = anchor.message.get("content", "") if anchor else ""
            return BeatStart("regenerate", text, before, carried=carried)
        if action == "continue":
            # SillyTavern's continue: the current swipe itself grows (its old text stays as its
            # revision: ``undo``); nothing written when nothing came.
            messages = tree.messages()
            if not messages or messages[-1].role != "assistant":
                raise BadInput("最后一条不是回复，没有可以续写的内容")
            return continue_start(self, messages[-1], before)
        return BeatStart("impersonate", "", before, record=False)


def thinking_level(value: str) -> ThinkingLevel:
    """A thinking level as a front was given it (``--thinking``): off, minimal, low, medium, high or
    xhigh, checked."""
    return parse_level(value)
