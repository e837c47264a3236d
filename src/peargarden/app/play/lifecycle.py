"""The beat's lifecycle, one for every chat: hold → (prepare → loop → after-reply) per speaker →
after-beat → finish → release.

A beat holds one reply per speaker (llm's ``ChainResponse``: several responses, one response
class).  A card's chat has one speaker; a group's round has several, in turn, each seeing the
replies before it.  Who speaks is a :class:`Turns`; each reply is played by a :class:`Speaker`
value — the env its mode's setup and steps get, how its messages are kept (``stamp``), where its
streamed text is checkpointed.  The lifecycle runs over a :class:`~.chat_core.ChatCore`'s public
members: the services (:mod:`.service`, :mod:`.group_session`) only plan the beat and name the turns.

    run = lifecycle(chat, start, OneSpeaker(speaker), release)   # what Beat iterates
    beat = Beat(action, run, speaker=name, cancel=cancel, approver=approver, release=release)

Around each reply the chat's mode runs its steps (``PlayMode.prepare`` before it, ``after_reply``
after it; ``after_beat`` once the last reply is complete, ``done`` held back meanwhile so a front
may unlock its composer at ``reply_end``), each through one runner (:mod:`.mode_steps`: a step's
failure is one warning, its time goes into the record); then the beat's record and log, and the
chat given back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

import msgspec
from msgspec.structs import replace

from peargarden.agent.approvals import Approver
from peargarden.agent.events import (
    AgentEvent,
    DoneEvent,
    ReplyEndEvent,
    SpeakerEvent,
    TextDeltaEvent,
    TextRetractEvent,
    ThinkingDeltaEvent,
    WarningEvent,
)
from peargarden.agent.loop import BeatKind, BeatSettings, ModeSwitch, run_beat
from peargarden.agent.record import no_record
from peargarden.agent.tools import ToolContext, ToolRegistry
from peargarden.errors import BadInput
from peargarden.modes.base import BeatEnv
from peargarden.modes.chat_variables import start_beat
from peargarden.sessions import ops
from peargarden.sessions.context import ContextMessage
from peargarden.sessions.entries import Entry
from peargarden.sessions.variables import CHAT_METADATA_TYPE, chat_metadata
from peargarden.workspace.cards import CardFolder

from .beat import Beat
from .chat_core import ChatCore, offered
from .checkpoints import StreamCheckpoint
from .hidden_updates import without_update_blocks
from .mode_steps import StepRunner
from .sandbox_judge import make_card_grant_recorder

# How the loop keeps a message: appended to the chat; returns the entry's id.
Recorder = Callable[[dict[str, Any]], str]
# A message as the chat keeps it (a group's reply carries who spoke and the round).
Stamp = Callable[[dict[str, Any]], dict[str, Any]]
# What a Beat iterates: given the beat to fill and the approver to ask, the events in order.
BeatRun = Callable[[Beat, Approver | None], Iterator[AgentEvent]]


# What a front may ask a chat to do (``ChatSession.play``, ``GroupSession.play``).
Action = Literal["send", "regenerate", "swipe", "continue", "impersonate"]
ACTIONS: tuple[str, ...] = get_args(Action)


def as_is(message: dict[str, Any]) -> dict[str, Any]:
    return message


class BeatStart(msgspec.Struct):
    """What a service set up before the loop: the kind of beat, the user's words, the number of
    entries before the beat (what it writes comes after), and for ``continue`` the history, the
    reply being continued (its text, its id) and whether it was extended."""

    kind: BeatKind
    user_text: str
    before: int
    record: bool = True
    history: list[ContextMessage] | None = None
    prefix: str = ""
    extends: str | None = None
    extended: list[str] = msgspec.field(default_factory=list)
    # A new swipe's chat variables: those in force where the chat was before it, which its branch
    # (forked at the user's message) would not see.  SillyTavern keeps one ``chat_metadata`` per chat
    # file: a swipe loses none of what the replies before it wrote.
    carried: dict[str, Any] | None = None

    def next_speaker(self) -> BeatStart:
        """The start as a later speaker of the round gets it: the chat as it is now, nothing to extend."""
        return replace(self, history=None, prefix="", extends=None, extended=[], carried=None)


def check_action(action: str) -> None:
    """An action a front asked for, checked (``BadInput`` naming the known ones)."""
    if action not in ACTIONS:
        raise BadInput(f"未知的动作 {action!r}（可用：{'、'.join(ACTIONS)}）")


def continue_start(chat: ChatCore, last: Entry, before: int) -> BeatStart:
    """Continue *last* (the branch's last reply), SillyTavern's way: the beat sees the whole
    history and what it writes extends *last* itself (its old text stays as its revision: ``undo``);
    nothing is written when nothing came."""
    prefix = str(last.message.get("content") or "")
    return BeatStart("continue", "", before, history=chat.context(), prefix=prefix, extends=last.id)


class Speaker(msgspec.Struct, frozen=True):
    """Who plays one reply: the env the mode's setup and steps get (its card, settings, caches),
    how its messages are kept, where its streamed text is checkpointed, and the event that tells a
    front who speaks (``None``: a card's one speaker, named by the beat itself)."""

    env: BeatEnv
    checkpoint: Path
    stamp: Stamp = as_is
    event: SpeakerEvent | None = None

    @property
    def card(self) -> CardFolder:
        """The card whose folder its tools work in and whose "always for this card" grants apply."""
        return self.env.folder

    @property
    def name(self) -> str:
        """Its character's name."""
        return self.env.char_name


class Turns(Protocol):
    """Who speaks in a beat, in turn (a card's chat: one; a group's round: the strategy's order)."""

    def next(self) -> Speaker | None:
        """The next speaker (``None``: the beat has no more replies)."""
        ...

    def ended(self, done: DoneEvent) -> str:
        """A reply ended with *done*: the beat's stop reason so far (it may end the turns)."""
        ...


class OneSpeaker:
    """A card's chat: one speaker, one reply."""

    def __init__(self, speaker: Speaker) -> None:
        self._left: list[Speaker] = [speaker]

    def next(self) -> Speaker | None:
        return self._left.pop() if self._left else None

    def ended(self, done: DoneEvent) -> str:
        return done.stop_reason


def lifecycle(chat: ChatCore, start: BeatStart, turns: Turns, release: Callable[[], None]) -> BeatRun:
    """The beat as every front gets it (see the module docstring); *release* gives the chat back."""

    def run(beat: Beat, approver: Approver | None) -> Iterator[AgentEvent]:
        chat.beat = beat
        try:
            yield from _replies(chat, start, turns, beat, approver, StepRunner(beat.record))
        finally:
            chat.beat = None
            try:
                _finish(chat, beat, start)
            finally:
                release()

    return run


class _Total:
    """The beat's ``done``: the last reply's stop reason, the rounds and usage of all of them."""

    def __init__(self) -> None:
        self.rounds = 0
        self.entry: str | None = None
        self.usage: dict[str, int] = {}

    def add(self, done: DoneEvent) -> None:
        self.rounds += done.rounds
        self.entry = done.entry_id or self.entry
        for key, value in done.usage.items():
            self.usage[key] = self.usage.get(key, 0) + value

    def done(self, stop: str) -> DoneEvent:
        return DoneEvent(stop_reason=stop, rounds=self.rounds, entry_id=self.entry, usage=self.usage)


def _replies(
    chat: ChatCore, start: BeatStart, turns: Turns, beat: Beat, approver: Approver | None, steps: StepRunner
) -> Iterator[AgentEvent]:
    total = _Total()
    stop, last = "stop", None
    while (speaker := turns.next()) is not None:
        if last is not None and beat.cancel.is_set():
            stop = "aborted"  # the user stopped the round between two speakers
            break
        if speaker.event is not None:
            yield speaker.event
        done = yield from _reply(chat, speaker, start if last is None else start.next_speaker(), beat, approver, steps)
        last = speaker
        total.add(done)
        stop = turns.ended(done)
        if start.record:
            yield from _after_reply(chat, speaker, beat, done, steps)
        if stop in ("error", "aborted"):
            break
    beat.record.seconds = round(time.time() - beat.started, 2)  # the replies' time
    final = total.done(stop)
    if last is not None and start.record:
        yield from _after_beat(chat, last, beat, final, steps)
    yield final


def _reply(
    chat: ChatCore, speaker: Speaker, start: BeatStart, beat: Beat, approver: Approver | None, steps: StepRunner
) -> Generator[AgentEvent, None, DoneEvent]:
    """One speaker's reply: the mode's prepare step (its writes, each said as an event), then the
    loop; its entries into the beat's record; returns the loop's ``done``."""
    play = chat.app.mode(chat.mode)
    start_beat(speaker.env)  # the card's scripts: a CPU budget per beat (a group: per speaker's reply)
    mark = len(chat.chat.tree)
    prepare = play.prepare
    if start.record and prepare is not None:
        for line in steps.run("prepare", lambda: prepare(speaker.env, chat.side_model), speaker.name):
            yield WarningEvent(message=line)
    events = _loop(chat, speaker, start, beat.cancel, approver)
    if play.hides_update_blocks:
        events = without_update_blocks(events)
    done = DoneEvent(stop_reason="error")
    for event in events:
        if isinstance(event, DoneEvent):
            done = event
            continue
        yield event
    tree = chat.chat.tree
    reply = beat.record.replies[-1]
    reply.entries = [*start.extended, *(i for i in tree.ids_since(mark) if tree.get(i).role == "assistant")]
    reply.stop_reason = done.stop_reason
    if start.carried is not None and reply.entries:
        _carry(chat, start.carried, mark)
    return done


def _carry(chat: ChatCore, variables: dict[str, Any], mark: int) -> None:
    """A new swipe's branch keeps the chat variables it was given (:attr:`BeatStart.carried`), unless
    the beat recorded the chat's metadata itself (its builder read them)."""
    tree = chat.chat.tree
    if any(tree.get(i).body.get("customType") == CHAT_METADATA_TYPE for i in tree.ids_since(mark)):
        return
    now = chat_metadata(chat.customs())
    if now.get("variables") != variables:
        chat.chat.append_custom(CHAT_METADATA_TYPE, {**now, "variables": variables})


def _after_reply(
    chat: ChatCore, speaker: Speaker, beat: Beat, done: DoneEvent, steps: StepRunner
) -> Iterator[AgentEvent]:
    """The mode's step after one reply (a group's MVU handles it before the next speaker): it sees
    the reply as the beat's only one, with the speaker's env."""
    after_reply = chat.app.mode(chat.mode).after_reply
    if after_reply is None:
        return
    one = replace(beat.record, replies=beat.record.replies[-1:], stop_reason=done.stop_reason)
    view, side = chat.branch_view(speaker.env), chat.side_call(beat.cancel)
    for warning in steps.run("after_reply", lambda: after_reply(view, side, one), speaker.name):
        yield WarningEvent(message=warning)


def _after_beat(
    chat: ChatCore, speaker: Speaker, beat: Beat, done: DoneEvent, steps: StepRunner
) -> Iterator[AgentEvent]:
    """The chat's mode's after-beat step, once the last reply is complete: ``reply_end`` first (a
    front may unlock its composer), then what the step has to say."""
    after_beat = chat.app.mode(chat.mode).after_beat
    if after_beat is None:
        return
    beat.record.stop_reason = done.stop_reason
    view, side = chat.branch_view(speaker.env), chat.side_call(beat.cancel)
    work = steps.start("after_beat", lambda: after_beat(view, side, beat.record), speaker.name)
    if work is None:
        return
    chat.tidy()
    yield ReplyEndEvent(stop_reason=done.stop_reason, entry_id=done.entry_id)
    for warning in work:
        yield WarningEvent(message=warning)


def _finish(chat: ChatCore, beat: Beat, start: BeatStart) -> None:
    """What the beat wrote, into its record; the beat log beside the session file."""
    record = beat.record
    record.entries = [*start.extended, *chat.chat.tree.ids_since(start.before)]
    if start.record and record.requests and not chat.chat.in_memory:
        chat.log_beat(record, beat.started)


def _loop(
    chat: ChatCore, speaker: Speaker, start: BeatStart, cancel: threading.Event, approver: Approver | None
) -> Iterator[AgentEvent]:
    """The agent loop for one reply, set up by the chat's mode for the speaker's env."""
    env, record = speaker.env, start.record
    play = chat.app.mode(chat.mode)
    builder, tool_list = play.setup(env)
    customs = chat.customs()
    if start.carried is not None:  # the builder reads them; _carry writes them if it does not
        customs.append(
            {"customType": CHAT_METADATA_TYPE, "data": {**chat_metadata(customs), "variables": start.carried}}
        )
    session = chat.chat

    def append_custom(custom_type: str, data: Any) -> None:
        session.append_custom(custom_type, data)
        customs.append({"customType": custom_type, "data": data})

    def switch(mode: str) -> ModeSwitch:
        """A tool switched the chat's mode (the stage's ``conversation_mode``): the next round's."""
        next_play = chat.app.mode(mode)
        next_builder, tools = next_play.setup(env)
        chat.set_mode(mode)
        return ModeSwitch(next_play.tool_mode, next_builder, ToolRegistry(offered(env, tools, "send")),
                          list(next_play.tags))  # fmt: skip

    home = chat.app.home
    ctx = ToolContext(
        home=home.root,
        card_dir=speaker.card.path,
        chat_id=session.chat_id,
        user_text=start.user_text,
        thinking=env.thinking,
        mode=play.tool_mode,
        custom_entries=customs,
        append_custom=append_custom if record else (lambda _t, _d: None),
    )
    # The streamed text is checkpointed until the loop records it (a crash keeps it).
    checkpoint = StreamCheckpoint(speaker.checkpoint, lambda: session.tree.leaf)
    settings = BeatSettings(
        provider=chat.provider,
        builder=builder,
        tools=ToolRegistry(offered(env, tool_list, start.kind)),
        thinking=env.thinking,
        mode=play.tool_mode,
        kind=start.kind,
        model=chat.resolved.model,
        judge=chat.sandbox_judge(),
        approver=approver,
        record_card_grant=chat.app.record_card_grant or make_card_grant_recorder(home, speaker.card.folder),
        record=_recording(_recorder(chat, speaker, start), checkpoint) if record else no_record,
        cancel=cancel,
        context=ctx,
        continue_prefix=start.prefix,
        tags=list(play.tags),
        switch_mode=switch if record else None,
    )
    events = run_beat(start.history if start.history is not None else chat.context(), settings)
    return _checkpointed(events, checkpoint) if record else events


def _recorder(chat: ChatCore, speaker: Speaker, start: BeatStart) -> Recorder:
    """How the loop keeps a message: appended at the leaf; a continue's first reply extends the
    reply it continues instead (``ops.plan_continue``)."""
    session = chat.chat

    def record(message: dict[str, Any]) -> str:
        target = start.extends
        if target is not None and not start.extended and message.get("role") == "assistant":
            added = message.get("content") != start.prefix or message.get("reasoning") or message.get("tool_calls")
            if added:  # nothing came: nothing is written
                session.apply(ops.plan_continue(session.tree, session.tree.get(target), speaker.stamp(message)))
                start.extended.append(target)
            return target
        return session.append_message(speaker.stamp(message)).id

    return record


def _recording(record: Recorder, checkpoint: StreamCheckpoint) -> Recorder:
    """*record*, then the checkpoint of the streamed text is dropped (the chat holds the text now)."""

    def recorded(message: dict[str, Any]) -> str:
        entry_id = record(message)
        checkpoint.recorded()
        return entry_id

    return recorded


def _checkpointed(events: Iterator[AgentEvent], checkpoint: StreamCheckpoint) -> Iterator[AgentEvent]:
    for event in events:
        if isinstance(event, TextDeltaEvent):
            checkpoint.add(text=event.text)
        elif isinstance(event, TextRetractEvent):
            checkpoint.take_back(event.text)
        elif isinstance(event, ThinkingDeltaEvent):
            checkpoint.add(reasoning=event.text)
        yield event
