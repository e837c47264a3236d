"""A chat as the fronts read and edit it, whoever plays it: a card's chat (:mod:`.service`) and a
group's (:mod:`.group_session`) are each a :class:`ChatCore` plus their own way to play a beat.

    chat.messages(); chat.context(); chat.tree_rows(); chat.beat_records(); chat.file_stamp()
    chat.edit(2, "新的话"); chat.delete(3); chat.hide(1, 4); chat.undo(5); chat.branch(1); chat.goto(id)
    chat.set_mode("tavern"); chat.set_persona("阿梨"); chat.reread()
    release = chat.hold()  # a beat or an edit claims the chat; release() gives it back

One beat or edit per chat at a time, across processes: each one first takes the chat's lock
(:mod:`peargarden.workspace.chat_lock`; a second claimant gets ``ChatBusy``, a ``ConflictError``)
and reads what other processes appended meanwhile, so its entries join the chat where it really ends.
The beat itself runs in :mod:`.lifecycle`, over this object's public members.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from peargarden.agent.approvals import Judge
from peargarden.agent.loop import BeatInput, BuiltRequest
from peargarden.agent.result import BEAT_PURPOSE, BeatResult, SentRequest
from peargarden.agent.tools import Tool, ToolRegistry
from peargarden.errors import NotFound, PearError, StorageError
from peargarden.modes.base import MODE_ENTRY_TYPE, BeatEnv, BranchView, PlayMode, SideCall
from peargarden.modes.chat_variables import start_beat
from peargarden.modes.side import ProviderSideCall, side_thinking
from peargarden.providers.base import ChatRequest, Provider, StreamEvent, ThinkingLevel
from peargarden.sessions import TreeRow, ops
from peargarden.sessions.context import ContextMemo, ContextMessage
from peargarden.sessions.entries import Entry
from peargarden.sessions.variables import CHAT_METADATA_TYPE, MESSAGE_VARIABLES_TYPE, note_data
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chat_lock import ChatBusy, ChatLock, holder_pid
from peargarden.workspace.chats import ChatFile, recorded_mode, utc_now
from peargarden.workspace.config import Settings

from ..library.personas import PERSONA_ENTRY_TYPE, load_persona
from ..settings.connections import ResolvedProvider, resolve_side
from ..settings.stored_keys import with_stored_key
from . import beat_log
from .beat import Beat
from .chat_variables import latest_records, status_line
from .checkpoints import recover
from .opening import AppCore
from .page_source import PageSource, RowCard
from .sandbox_judge import make_sandbox_judge
from .settle import settle, unsettled_reply

if TYPE_CHECKING:
    from peargarden.stage.memory.view import StoryView

# How long a beat asked for while the last one runs its after-beat step (scene notes, compaction)
# waits for it, seconds; the side model's own timeouts end that step well before.
AFTER_BEAT_WAIT = 600.0


class Preview(msgspec.Struct):
    """What the next beat would send: the first request, its tools and the warnings it would show."""

    mode: str
    request: ChatRequest
    tools: list[Tool]
    warnings: list[str]
    # What the mode's builder shows besides the request (tavern: SillyTavern's "body" and "assembly").
    inspect: dict[str, Any] = msgspec.field(default_factory=dict)


class ChatCore(msgspec.Struct):
    """One open chat: its session file, the mode on its branch, its claim, its beat log."""

    app: AppCore
    card: CardFolder  # the card (a group's: its first member's)
    chat: ChatFile
    settings: Settings
    resolved: ResolvedProvider
    mode: str
    # Who plays and how, between beats (a group's: its first member's; each speaker has its own).
    env: BeatEnv
    lock_file: Path  # the chat's cross-process lock
    checkpoint: Path  # where a streaming reply is checkpointed (see .checkpoints)
    # The mode of a branch with no recorded mode change (``--mode`` of the front, else the chat
    # header's, else config.toml's); see :meth:`follow_branch`.
    start_mode: str = ""
    # Whether the chat keeps story memory (``AppCore.keeps_story_memory``); the mode's steps read it.
    story_memory: bool = False
    # The beat running now: its record collects the requests sent (see :meth:`observe`).
    beat: Beat | None = None
    _context: ContextMemo = msgspec.field(default_factory=ContextMemo)
    _busy: threading.Lock = msgspec.field(default_factory=threading.Lock)
    # Set while the beat holding the chat runs its mode's after-beat step (its reply is complete):
    # a beat or edit asked for meanwhile waits for it instead of failing (see hold).
    _tidying: threading.Event = msgspec.field(default_factory=threading.Event)
    _lock: ChatLock | None = None
    _beats: list[beat_log.BeatRecord] | None = None  # the beat log as read
    # The main model's provider as the beats call it: every request seen on its way out.
    _provider: Provider | None = None

    # -- reading -----------------------------------------------------------------------------------

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = _Observed(self.resolved.provider, lambda request: self.observe(request, BEAT_PURPOSE))
        return self._provider

    @property
    def chat_id(self) -> str:
        return self.chat.chat_id

    @property
    def thinking(self) -> ThinkingLevel:
        return self.env.thinking

    @property
    def model(self) -> str:
        """The main model's name, as requests carry it."""
        return self.resolved.model

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

    def branch_view(self, env: BeatEnv | None = None) -> BranchView:
        """The chat as a mode's steps see it: the active branch, who plays (*env*: a speaker's,
        default the chat's), which model."""
        return BranchView(
            chat_id=self.chat_id,
            env=env or self.env,
            model=self.resolved.model,
            tree=self.chat.tree,
            append_custom=self.chat.append_custom,
            config_file=self.app.home.config_file,
            story_memory=self.story_memory,
            mode=self.mode,
        )

    def story_of(self, env: BeatEnv) -> Callable[[], StoryView | None]:
        """The story memory the chat's mode reads for a beat of *env* (``BeatEnv.story``)."""

        def story() -> StoryView | None:
            play = self.app.mode(self.mode)
            return play.story(self.branch_view(env)) if play.story is not None else None

        return story

    def observe(self, request: ChatRequest, purpose: str) -> None:
        """A request on its way out: into the running beat's record and to the app's hooks."""
        sent = SentRequest(request, purpose, self.resolved.model)
        beat = self.beat
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

    def customs(self) -> list[dict[str, Any]]:
        """The branch's custom entries as a builder sees them (``BeatInput.custom_entries``)."""
        return [{"customType": e.body.get("customType"), "data": e.body.get("data")} for e in self.chat.tree.customs()]

    def messages(self) -> list[ContextMessage]:
        """The active branch's messages (numbered from 0 for /edit, /delete, /branch)."""
        return [ContextMessage.from_entry(entry) for entry in self.chat.tree.messages()]

    def context(self) -> list[ContextMessage]:
        return self._context.build(self.chat.tree.path(), self.chat.tree.amended)

    def tree_rows(self) -> list[TreeRow]:
        return self.chat.tree.rows()

    def preview(self, mode: str | None = None, text: str = "") -> Preview:
        """The first request the next beat would send in *mode* (default: the chat's) after the user
        says *text* — built by the same setup and builder as the beat, and nothing is written.  A mode
        whose prepare step has work to do (a changed preset) says so in the warnings."""
        name = mode or self.mode
        play = self.app.mode(name)
        start_beat(self.env)  # a preview's scripts get a beat's budget of their own
        builder, tools = play.setup(self.env)
        tools = offered(self.env, tools, "send")
        history = self.context()
        if text:
            message = user_message(self.env, text, play)
            history.append(ContextMessage("user", text, name=message.get("name"), tags=list(message.get("tags", []))))
        specs = ToolRegistry(tools).specs()
        built = builder(BeatInput(history, text, self.env.thinking, specs, 0, play.tool_mode, "send", self.customs()))
        if isinstance(built, ChatRequest):
            built = BuiltRequest(built)
        request = built.request
        request.thinking = self.env.thinking  # as the loop sets them on every request it sends
        request.model = request.model or self.resolved.model
        return Preview(name, request, tools, list(built.warnings), dict(built.inspect))

    def branch_rows(self, around: int, *, fold: int = 8, limit: int = 1500) -> list[TreeRow]:
        """The part of the branch tree a page draws beside a window starting at message *around*
        (see :func:`.chat_page.branch_rows`)."""
        from . import chat_page  # the page model, on demand: a beat or an assembly never draws it

        return chat_page.branch_rows(self.chat.tree, around, fold=fold, limit=limit)

    def sibling(self, index: int, step: int) -> str:
        """The id of the version *step* places before (-1) or after (1) message *index* among its
        siblings; ``BadInput`` past either end."""
        from . import chat_page  # the page model, on demand

        return chat_page.sibling_of(self.chat.tree, index, step)

    def page_source(self, char_name: str, row_card: Callable[[Entry], RowCard | None] | None = None) -> PageSource:
        """The chat as its page reads it (:mod:`.chat_page`); *char_name*: who the replies are by;
        *row_card*: the card a row was written by, when not the chat's own (a group's members)."""
        return PageSource(
            tree=self.chat.tree,
            home=self.app.home,
            card=self.card,
            card_data=self.env.card.data,
            chat_id=self.chat_id,
            mode=self.mode,
            modes=list(self.app.modes),
            model=self.model,
            user_name=self.env.user_name,
            char_name=char_name,
            warnings=list(self.chat.warnings),
            settings=self.settings,
            provider=self.provider,
            beat_records=self.beat_records,
            **({"row_card": row_card} if row_card is not None else {}),
        )

    def status_line(self) -> str | None:
        """``pear chat``'s status line after a beat: the variables in force, the ones the last reply
        changed marked (``None``: the chat keeps no variables)."""
        record, before = latest_records(self.chat.tree)
        return status_line(record, before=before)

    def variables_event(self) -> dict[str, Any] | None:
        """``pear chat --once --json``'s last line when the chat keeps variables: ``{"type":
        "variables", "variables": <the record in force>, "status": <the status line>}``."""
        record, before = latest_records(self.chat.tree)
        if record is None:
            return None
        return {"type": "variables", "variables": record, "status": status_line(record, before=before)}

    def reload_card(self) -> None:
        """The card file was rewritten (a regex script switched, an apply): read it again."""
        self.env.card = self.card.load_card()

    # -- the side model ----------------------------------------------------------------------------

    def side_model(self) -> tuple[Provider, str]:
        """The side model for a mode's prepare step (the preset declaration's labeller)."""
        side = self.side_connection()
        return _Observed(side.provider, lambda request: self.observe(request, "declare")), side.model

    def side_connection(self) -> ResolvedProvider:
        """The chat's side model: ``[side_model]`` when configured, else the chat's own model."""
        return resolve_side(with_stored_key(self.app.home, self.settings), self.resolved)

    def side_call(self, cancel: threading.Event | None = None) -> SideCall:
        """The side model as a mode's steps call it (its requests recorded like the beat's); the
        connection is made on the first call.  *cancel*: the beat's stop event."""
        return _LazySideCall(self.side_connection, cancel, self.observe)

    def sandbox_judge(self) -> Judge:
        """The judge of the chat's tool calls: the app's, else the sandbox with config.toml's lists."""
        if self.app.judge is not None:
            return self.app.judge
        lists = self.settings.sandbox
        return make_sandbox_judge(lists.blacklist, lists.no_ask_prefixes)

    # -- the branch --------------------------------------------------------------------------------

    def reread(self) -> None:
        """Read the session file afresh (another program wrote it) and follow its branch's mode."""
        self.chat = ChatFile.open(self.chat.path.parents[1], self.chat_id)
        self._beats = None  # the other program logs its beats there too
        self.follow_branch()

    def follow_branch(self) -> None:
        """After the leaf moved (rewind, branch, goto, swipe, edit, a re-read file): the live mode is
        the one recorded on the new branch, as reopening the chat would give."""
        mode = recorded_mode(self.chat) or self.start_mode
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
            if self.held():  # a switch the model made during its beat
                self.chat.append_custom(MODE_ENTRY_TYPE, {"mode": mode})
            else:
                with self.holding():
                    self.chat.append_custom(MODE_ENTRY_TYPE, {"mode": mode})
        self.mode = mode

    # -- edits -------------------------------------------------------------------------------------

    def edit(self, index: int, text: str) -> None:
        with self.holding():
            self.chat.apply(ops.plan_edit(self.chat.tree, index, text))
            self.follow_branch()

    def delete(self, index: int | list[int]) -> None:
        """Delete message *index*, or the messages at several (a new branch without them)."""
        with self.holding():
            if isinstance(index, list):
                plan = ops.plan_delete_many(self.chat.tree, index, self.chat.new_id, utc_now())
            else:
                plan = ops.plan_delete(self.chat.tree, index, self.chat.new_id, utc_now())
            self.chat.apply(plan)
            self.follow_branch()

    def insert_message(self, message: dict[str, Any], at: int | None = None) -> None:
        """*message* written into the chat with no reply (STscript's ``/send``, ``/sendas``, ``/sys``,
        ``/comment``): at the end, or before message *at* (a new branch, as an edit makes one)."""
        with self.holding():
            self.chat.apply(ops.plan_insert(self.chat.tree, at, message, self.chat.new_id, utc_now()))
            self.follow_branch()

    def save_chat_metadata(self, metadata: dict[str, Any]) -> None:
        """SillyTavern's chat metadata (chat variables, script injections, the Author's Note) for the
        branch from here on, as a tavern beat keeps it."""
        with self.holding():
            self.chat.append_custom(CHAT_METADATA_TYPE, metadata)

    def save_message_variables(self, entry_id: str, variables: Any) -> None:
        """TavernHelper's variables of one message (the entry its shown swipe is), as MVU keeps them,
        for the branch from here on (a card's script wrote them)."""
        with self.holding():
            self.chat.append_custom(MESSAGE_VARIABLES_TYPE, note_data(entry_id, variables=variables))

    def save_message_swipes(self, entry_id: str, swipes: dict[str, Any], text: str, variables: Any) -> None:
        """SillyTavern's swipes of one message as a card's script set them (see ``sessions/variables.py``),
        *text* the one shown and *variables* its record, for the branch from here on."""
        with self.holding():
            note = note_data(entry_id, variables=variables, text=text, swipes=swipes)
            self.chat.append_custom(MESSAGE_VARIABLES_TYPE, note)

    def save_message_extra(self, entry_id: str, extra: dict[str, Any]) -> None:
        """SillyTavern's ``extra`` of one message as a card's script set it, for the branch from here on."""
        with self.holding():
            self.chat.append_custom(MESSAGE_VARIABLES_TYPE, note_data(entry_id, extra=extra))

    def hide(self, first: int, last: int | None = None, *, hidden: bool = True) -> bool:
        """Hide messages *first* … *last* from the model, or show them again (SillyTavern's ``/hide``
        and ``/unhide``); ``False`` when none of them changes."""
        with self.holding():
            plan = ops.plan_hide(self.chat.tree, first, first if last is None else last, hidden)
            if plan is None:
                return False
            self.chat.apply(plan)
            self.follow_branch()
            return True

    def undo(self, index: int) -> None:
        """Message *index* back to its text before its latest continue (``BadInput`` when none)."""
        with self.holding():
            self.chat.apply(ops.plan_undo(self.chat.tree, index))

    def branch(self, index: int) -> None:
        with self.holding():
            self.chat.apply(ops.plan_branch(self.chat.tree, index))
            self.follow_branch()

    def goto(self, entry_id: str, *, deepest: bool = False) -> None:
        """Move the chat to *entry_id*; *deepest*: on to the newest end of the branch below it."""
        with self.holding():
            if entry_id not in self.chat.tree:
                raise NotFound(f"会话里没有条目 {entry_id}")
            self.chat.move_leaf(self.chat.tree.deepest_leaf(entry_id) if deepest else entry_id)
            self.follow_branch()

    # -- the claim ---------------------------------------------------------------------------------

    def held(self) -> bool:
        """Whether this session holds the chat's cross-process lock now (a beat or an edit runs)."""
        return self._lock is not None and self._lock.held

    def hold(self) -> Callable[[], None]:
        """Claim the chat for one beat or edit; returns the (idempotent) release.

        This session's own lock first (a second beat from another thread of this front), then the
        chat's cross-process lock; then what other processes appended is read in, so new entries
        join the chat where it really ends rather than forking a side branch off a stale leaf, and
        a reply a crash cut off mid-stream comes back as an incomplete message (see .checkpoints).
        """
        if not self._busy.acquire(blocking=False) and not (
            self._tidying.is_set() and self._busy.acquire(timeout=AFTER_BEAT_WAIT)
        ):
            raise ChatBusy("这段对话正在生成回复：等它结束，或先停止它")
        # A clean release empties the lock file: a pid still in it names a process that died holding
        # the chat (read before taking it, when ours overwrites it).
        died_holding = holder_pid(self.lock_file) is not None
        lock = self._lock or ChatLock(self.lock_file, self.chat.chat_id)
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
            changed = recover(self.checkpoint, self.chat, self.env.char_name) or changed
            if changed:
                self.follow_branch()
            if died_holding:
                self.settle_reply()
        except BaseException:
            release()
            raise
        return release

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        release = self.hold()
        try:
            yield
        finally:
            release()

    def settle_reply(self) -> list[str]:
        """Finish a reply its beat saved but never settled (see :mod:`.settle`): the mode's variables
        step runs for the branch's last reply when it has no variables record.  What the step says
        joins the chat's warnings (what the page shows of reading the session file)."""
        step = self.app.mode(self.mode).variables
        view = self.branch_view()
        reply = unsettled_reply(view) if step is not None else None
        if step is None or reply is None:
            return []
        lines = settle(self.branch_view(self.env_of(reply)), step, reply)
        if unsettled_reply(self.branch_view()) is None:  # the step wrote the reply's record
            lines = ["上一拍在记下变量之前中断了：已按那条回复补上变量", *lines]
        self.chat.warnings.extend(lines)
        return lines

    def env_of(self, entry: Entry) -> BeatEnv:
        """The env of whoever wrote *entry* (a card's chat: its one env)."""
        return self.env

    def tidy(self) -> None:
        """The beat holding the chat is past its reply (its after-beat step runs): a beat or edit
        asked for now waits for the chat (cleared when the chat is given back)."""
        self._tidying.set()

    def log_beat(self, record: BeatResult, started: float) -> None:
        """A finished beat into the log beside the session file (a record, not the story: a failure
        to write it costs nothing)."""
        with contextlib.suppress(OSError, ValueError, PearError):
            logged = beat_log.log_beat(self.chat.path, record, started)
            if self._beats is not None:
                self._beats = [*self._beats, logged][-beat_log.KEEP :]


def offered(env: BeatEnv, tools: list[Tool], kind: str) -> list[Tool]:
    """The tools a beat of *kind* offers the model."""
    if env.embedded:
        return []  # the embedded model's automatic tool choice runs away
    if kind == "impersonate":
        return []  # each builder words the request itself (stage, tavern, plain)
    return tools


def user_message(env: BeatEnv, text: str, play: PlayMode) -> dict[str, Any]:
    """The user's message as a chat keeps it (words sent in work mode stay out of the story)."""
    message: dict[str, Any] = {"role": "user", "content": text, "name": env.user_name}
    if play.tags:
        message["tags"] = list(play.tags)
    if play.user_fields:
        message.update(copy.deepcopy(play.user_fields))
    return message


def recover_after_crash(chat: ChatCore) -> None:
    """A chat just opened: claimed (recovering what a crash left) and given back at once; a chat
    another process is playing right now is left to that process."""
    with contextlib.suppress(ChatBusy, StorageError):
        chat.hold()()


class _Observed:
    """A provider whose requests are seen on their way out (``ChatCore.observe``); everything
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
