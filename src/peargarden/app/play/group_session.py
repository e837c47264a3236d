"""A group chat as the service plays it: one user message, one beat, several speakers.

    chat = new_group_chat(app, "茶馆")                 # or open_group_chat / latest_group_chat
    beat = chat.play("send", "各位晚上好！")            # the group's strategy picks the speakers
    for item in beat: ...                             # a ``speaker`` event before each reply
    beat.result.replies                               # one Reply per speaker, with its ``speaker``
    chat.play("send", "/trigger 林月")                 # or play("send", speaker="林月"): that member answers

A :class:`GroupSession` is a :class:`~peargarden.app.play.service.ChatSession` whose beat is a round
(SillyTavern's ``generateGroupWrapper``, see ``docs/group-chats.md``): who speaks comes from
:mod:`peargarden.tavern.group_turns` (the group's activation strategy, ``/trigger``, the author of
the last reply for swipe and continue, a random member for impersonate); each speaker's reply is
one run of the agent loop with that member's env (its card, its books, its caches), in order, each
seeing the replies before it; the user can stop between speakers; the mode's after-beat step runs
once, after the last speaker.  Regenerate re-runs the whole round (the old one stays a branch);
swipe and continue act on the last reply, whose speaker they keep.

The chat lives in the group's folder (``groups/<group>/chats/<id>/session.jsonl``, see
:mod:`peargarden.workspace.groups`); its lock, checkpoints and beat log are keyed by the group.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import msgspec
from msgspec.structs import replace

from peargarden.agent.approvals import Approver
from peargarden.agent.events import AgentEvent, DoneEvent, SpeakerEvent, WarningEvent
from peargarden.errors import BadInput, NotFound
from peargarden.formats import (
    card_to_object,
    format_send_date,
    read_chat_jsonl,
)
from peargarden.formats.groups import GroupFile
from peargarden.modes.group.rounds import (
    group_fields,
    last_reply,
    message_avatar,
    message_round,
    plan_regenerate_round,
    plan_swipe_reply,
    reply_swipes,
    spoken_lines,
)
from peargarden.modes.group.scene import SPEAKER_CHOICES, GroupBeatEnv, GroupScene, Member
from peargarden.modes.group.table import GROUP_MODES
from peargarden.sessions import ops
from peargarden.sessions.entries import GREETING_TAG
from peargarden.tavern.group import Group
from peargarden.tavern.group_turns import (
    RoundCall,
    choose_speakers,
    find_member,
    impersonate_pick,
    next_round_id,
    swipe_author,
    trim_reply,
)
from peargarden.text.rolls import live_random
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chat_lock import ChatBusy, ChatLock
from peargarden.workspace.chats import ChatFile, last_written
from peargarden.workspace.config import Settings, check_st_version, load_settings, merge_card_settings
from peargarden.workspace.groups import GroupFolder, member_card, open_group
from peargarden.workspace.locking import lock_file_for

from ..library.groups import group_chat_jsonl, import_chat_file, remember_chat
from ..library.personas import PERSONA_ENTRY_TYPE, choose_persona, recorded_persona
from ..settings.connections import ResolvedProvider
from .beat import Beat
from .chat_page import ChatView, chat_view
from .chat_variables import ChatVariables
from .checkpoints import checkpoint_file
from .group_variables import group_variables, members_keep_variables
from .hidden_updates import without_update_blocks
from .member_scripts import member_speakers
from .service import (
    ACTIONS,
    ChatOptions,
    ChatSession,
    PearApp,
    _BeatStart,
    _card_object,
    _recorded_mode,
    chat_thinking,
)

# 群.json keys that are the group's own (the rest are 卡.json's keys, applied over every member's).
_GROUP_ONLY_KEYS = frozenset({"speaker_choice", "speakerChoice", "tavern", "lorebooks"})
# With the model choosing who speaks next, a round ends after this many replies per member at most.
_REPLIES_PER_MEMBER = 2
# Round ids above this are no clock (SillyTavern draws a greeting's id as now × random × 10⁶);
# a round id is moved past clock ids only, or it would reach the float range JavaScript rounds in.
_CLOCK_IDS = 2**53
_TRIGGER = re.compile(r"^\s*/trigger(?:\s+(.*))?$", re.DOTALL | re.IGNORECASE)


class MemberView(msgspec.Struct, frozen=True):
    """A member as a front lists it."""

    avatar: str
    card: str  # the card folder
    name: str
    muted: bool


class _RoundPlan(msgspec.Struct):
    start: _BeatStart
    speakers: list[str]
    round_id: Any


class GroupSession(ChatSession):
    """A group chat (see the module docstring).  ``env`` and ``card`` are the member speaking now
    (the first member between beats)."""

    group: GroupFolder | None = None
    scene: GroupScene | None = None
    envs: dict[str, GroupBeatEnv] = msgspec.field(default_factory=dict)
    # Who speaks next is drawn from this (NATURAL and POOLED rolls, impersonate's member).
    random: Callable[[], float] = msgspec.field(default_factory=live_random)
    _round_id: Any = None
    _options: ChatOptions = msgspec.field(default_factory=ChatOptions)

    # -- reading -----------------------------------------------------------------------------------

    @property
    def folder(self) -> GroupFolder:
        assert self.group is not None
        return self.group

    @property
    def the_scene(self) -> GroupScene:
        assert self.scene is not None
        return self.scene

    @property
    def char_name(self) -> str:
        """The group's name (a group chat has no one character)."""
        return self.the_scene.title or self.folder.folder

    def roster(self) -> list[MemberView]:
        """The members whose cards are here, in the group's order."""
        scene = self.the_scene
        return [MemberView(a, m.card.folder, m.name, scene.group.is_muted(a)) for a, m in scene.members.items()]

    def view(self, last: int | None = None, before: int | None = None, *, since: int | None = None) -> ChatView:
        """The page model (:meth:`ChatSession.view`) with the group in ``extra["group"]``: its
        members, strategy and mode, and each reply's card (``row_cards``: entry id → card folder);
        the swipe arrows are the last reply's."""
        page = chat_view(self, last, before, since, split_replies=True, speakers=member_speakers(self))
        cards = {row.id: card for row in page.rows if row.role == "assistant" and (card := self.card_of(row.id))}
        position, count = reply_swipes(self.chat.tree)
        swipe = replace(page.swipe, position=position, count=count, generate=count > 0)
        group = {**self.group_info(), "row_cards": cards}
        return dataclasses.replace(page, swipe=swipe, extra={**page.extra, "group": group})

    def card_of(self, entry_id: str) -> str | None:
        """The card folder of the member who wrote the entry (``None``: the user, or a member gone)."""
        member = self.the_scene.members.get(message_avatar(self.chat.tree.get(entry_id).message))
        return member.card.folder if member is not None else None

    def group_info(self) -> dict[str, Any]:
        """The group as a front shows it: name, members, strategy, card joining, who picks speakers
        (read from its files again when no round runs: another window may have changed them)."""
        if not self.busy:
            self.refresh_group()
        scene = self.the_scene
        raw = self.folder.read().raw
        return {
            "folder": self.folder.folder,
            "name": self.char_name,
            "members": [msgspec.structs.asdict(m) for m in self.roster()],
            "activation_strategy": scene.group.activation,
            "generation_mode": scene.group.mode,
            "allow_self_responses": scene.group.allow_self_responses,
            "join_prefix": raw.get("generation_mode_join_prefix", ""),
            "join_suffix": raw.get("generation_mode_join_suffix", ""),
            "speaker_choice": scene.speaker_choice,
        }

    def swipe_position(self) -> tuple[int, int]:
        return reply_swipes(self.chat.tree)

    def export_sillytavern(self) -> bytes:
        """The active branch as a SillyTavern group chat (``group chats/<id>.jsonl``)."""
        return group_chat_jsonl(self.chat, self.env.user_name, self.char_name)

    def reread(self) -> None:
        self.chat = ChatFile.open(self.folder.chats_dir, self.chat_id)
        self._beats = None
        self.follow_branch()

    def _checkpoint_path(self) -> Any:
        return checkpoint_file(self.app.home, f"group:{self.folder.folder}", self.chat.chat_id)

    # -- greetings ---------------------------------------------------------------------------------

    def add_greetings(self) -> None:
        """A new group chat: every member's greeting in the group's order, muted members too (one
        of a member's greetings at random when it has alternates), each its own round, as
        SillyTavern opens a group."""
        scene = self.the_scene
        now_ms = time.time() * 1000
        for avatar, member in scene.members.items():
            data = member.card_object.get("data")
            fields = data if isinstance(data, dict) else member.card_object
            texts = [str(fields.get("first_mes") or "")]
            alternates = fields.get("alternate_greetings")
            if isinstance(alternates, list) and alternates:
                texts = [t for t in [*texts, *alternates] if isinstance(t, str) and t]
                texts = [texts[math.floor(self.random() * len(texts))]] if texts else []
            round_id = int(now_ms * self.random() * 1_000_000)
            text = texts[0].strip() if texts else ""
            if not text:
                continue
            self._speak_as(avatar)
            text = self._greeting_text(text, member.name)
            self.chat.append_message(
                {
                    "role": "assistant",
                    "content": text,
                    "name": member.name,
                    "tags": [GREETING_TAG],
                    "st": group_fields(member.name, avatar, round_id, _send_date()),
                }
            )
        self._speak_as(next(iter(scene.members)))

    # -- playing -----------------------------------------------------------------------------------

    def play(
        self,
        action: str,
        text: str = "",
        *,
        step: int = 1,
        cancel: Any = None,
        approver: Approver | None = None,
        speaker: str | None = None,
    ) -> Beat:
        """One round: ``send`` (*text*, may be empty: the members answer the chat as it is;
        ``/trigger NAME`` or *speaker* makes that member answer, muted or not), ``regenerate`` (the
        whole last round again), ``swipe`` / ``continue`` (the last reply, by its speaker),
        ``impersonate`` (the user's next line, with a random member as ``{{char}}``)."""
        if action not in ACTIONS:
            raise BadInput(f"未知的动作 {action!r}（可用：{'、'.join(ACTIONS)}）")
        trigger = _TRIGGER.match(text) if action == "send" else None
        if trigger is not None:
            speaker, text = (trigger.group(1) or "").strip(), ""
            if not speaker:
                raise BadInput("/trigger 需要成员名（/trigger NAME）")
        release = self._hold()
        try:
            self.refresh_group()  # under the chat's lock: never while a round of this chat runs
            self.the_scene.keeps_variables = members_keep_variables(self._member_envs())
            force = self.member_named(speaker) if speaker else None
            plan = self._plan(action, text, step, force)
        except BaseException:
            release()
            raise
        if plan is None:
            release()
            return Beat(action, None)
        first = self.the_scene.members[plan.speakers[0]].name if plan.speakers else self.char_name
        return Beat(action, _round(self, plan, release), speaker=first, cancel=cancel, approver=approver,
                    release=release)  # fmt: skip

    def member_named(self, name: str) -> str:
        """A member's avatar by its name, card folder or avatar (``NotFound`` naming the members)."""
        scene = self.the_scene
        avatar = scene.avatar_named(name)
        if avatar is None:
            avatar = find_member(scene.cast, name)
        if avatar is None:
            names = "、".join(m.name for m in scene.members.values())
            raise NotFound(f"群聊里没有成员「{name}」（成员：{names}）")
        return avatar

    def _plan(self, action: str, text: str, step: int, force: str | None) -> _RoundPlan | None:
        tree = self.chat.tree
        before = len(tree)
        scene = self.the_scene
        cast = scene.cast
        lines = spoken_lines(tree.messages())
        if action == "send":
            call = RoundCall("normal", user_input=text.strip())
            speakers = [force] if force else choose_speakers(cast, lines, call, self.random)
            if text.strip():
                self.chat.append_message(self._user_message(text, self.app.mode(self.mode)))
            return _RoundPlan(_BeatStart("send", text, before), speakers, _new_round(lines))
        if action == "regenerate":
            self.chat.apply(plan_regenerate_round(tree))
            self.follow_branch()
            lines = spoken_lines(self.chat.tree.messages())
            speakers = [force] if force else choose_speakers(cast, lines, RoundCall("normal"), self.random)
            anchor = ops.last_user(self.chat.tree)
            words = str(anchor.message.get("content") or "") if anchor is not None else ""
            return _RoundPlan(_BeatStart("send", words, before), speakers, _new_round(lines))
        if action == "swipe":
            plan = plan_swipe_reply(tree, step)
            if plan is not None:
                self.chat.apply(plan)
                self.follow_branch()
                return None
            last = last_reply(tree)
            speakers = swipe_author(cast, lines, random=self.random)
            round_id = message_round(last.message)
            self.chat.move_leaf(last.parent_id)
            return _RoundPlan(_BeatStart("regenerate", "", before), speakers, round_id or _new_round(lines))
        if action == "continue":
            last = last_reply(tree)
            speakers = swipe_author(cast, lines, random=self.random)
            start = self._continue_start(last, before)
            return _RoundPlan(start, speakers[:1], message_round(last.message) or _new_round(lines))
        return _RoundPlan(_BeatStart("impersonate", "", before, record=False), impersonate_pick(cast, self.random),
                          None)  # fmt: skip

    def _speak_as(self, avatar: str) -> None:
        scene = self.the_scene
        scene.speaker = avatar
        self.env = self.envs[avatar]
        self.card = self.env.card

    def _stamped(self, message: dict[str, Any]) -> dict[str, Any]:
        """A reply as the group keeps it: its speaker's name, SillyTavern's group fields (who spoke,
        the round), and cut where the model went on as another member (``cleanGroupMessage``)."""
        if message.get("role") != "assistant":
            return message
        scene = self.the_scene
        member = scene.current
        content = str(message.get("content") or "")
        if content and not self._no_trimming():
            content = trim_reply(content, scene.cast, member.name)
        st = group_fields(member.name, scene.speaker, self._round_id, _send_date())
        return {**message, "content": content, "name": member.name, "st": st}

    def _after_reply(self, beat: Beat) -> Iterator[AgentEvent]:
        """The mode's step after one speaker's reply (MVU handles it), before the next speaker: it
        sees the reply as the beat's only one, with the speaker's env."""
        play = self.app.mode(self.mode)
        if play.after_reply is None:
            return
        one = replace(beat.record, replies=beat.record.replies[-1:])
        work = play.after_reply(self.branch_view(), self.side_call(beat.cancel), one)
        for warning in work or ():
            yield WarningEvent(message=warning)

    def variables(self) -> ChatVariables:
        """Every message's variables (per swipe) and the chat's: one line per reply, as the group's
        SillyTavern file numbers them."""
        return group_variables(self.chat.tree, self.chat.header, self._member_folders())

    def _member_envs(self) -> list[GroupBeatEnv]:
        return [self.envs[avatar] for avatar in self.the_scene.members if avatar in self.envs]

    def _member_folders(self) -> list[tuple[CardFolder, Settings]]:
        return [(env.card, env.settings) for env in self._member_envs()]

    def _no_trimming(self) -> bool:
        tavern = self.the_scene.tavern or {}
        power_user = tavern.get("power_user")
        return isinstance(power_user, dict) and bool(power_user.get("disable_group_trimming"))

    def _finish(self, beat: Beat, start: _BeatStart) -> None:
        kept = [list(reply.entries) for reply in beat.record.replies]
        super()._finish(beat, start)
        for reply, entries in zip(beat.record.replies, kept, strict=True):
            reply.entries = entries

    # -- the group file ----------------------------------------------------------------------------

    def refresh_group(self) -> None:
        """Read ``group.json`` and ``群.json`` again (a member muted from another window, a new
        strategy): the next round follows them."""
        group_file = self.folder.read()
        settings = self.folder.settings()
        scene = self.the_scene
        if list(group_file.members) != list(scene.group.members):
            members = _members(self.app, group_file)
            for avatar, member in members.items():
                if avatar not in self.envs:
                    self.envs[avatar] = _member_env(self, member, scene)
            scene.members = members
        scene.group = Group.from_st(group_file.raw)
        scene.title = group_file.name or self.folder.folder
        scene.speaker_choice = _speaker_choice(settings, self.folder)
        scene.tavern = _tavern(settings)
        if scene.speaker not in scene.members:
            self._speak_as(next(iter(scene.members)))


def _send_date() -> str:
    return format_send_date(datetime.now(UTC))


def _new_round(lines: list[dict[str, Any]]) -> int:
    clocked = [line for line in lines if not _beyond_clock(line)]
    return next_round_id(clocked, time.time() * 1000)


def _beyond_clock(line: dict[str, Any]) -> bool:
    extra = line.get("extra")
    value = extra.get("gen_id") if isinstance(extra, dict) else None
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > _CLOCK_IDS


def _round(
    session: GroupSession, plan: _RoundPlan, release: Callable[[], None]
) -> Callable[[Beat, Approver | None], Iterator[AgentEvent]]:
    """The round as every front gets it: a ``speaker`` event, then that member's beat, for each
    speaker in turn; the mode's after-beat step once the last reply is complete; one ``done``."""

    def run(beat: Beat, approver: Approver | None) -> Iterator[AgentEvent]:
        session._beat = beat
        scene = session.the_scene
        scene.start_round()
        session._round_id = plan.round_id
        queue = list(plan.speakers)
        if scene.speaker_choice == "model" and session.mode == "stage" and plan.start.kind == "send":
            queue = queue[:1]  # the speaking model names the next one
        limit = max(1, _REPLIES_PER_MEMBER * len(scene.members))
        stop, rounds, entry, usage = "stop", 0, None, dict[str, int]()
        try:
            while queue and len(scene.spoken) < limit:
                if beat.cancel.is_set():
                    stop = "aborted"
                    break
                avatar = queue.pop(0)
                session._speak_as(avatar)
                member = scene.current
                yield SpeakerEvent(name=member.name, card=member.card.folder)
                start = plan.start if not scene.spoken else replace(plan.start, history=None, prefix="")
                mark = len(session.chat.tree)
                scene.handed_to = None
                done = DoneEvent(stop_reason="error")
                events = session._beat_events(start, beat.cancel, approver)
                if session.app.mode(session.mode).hides_update_blocks:
                    events = without_update_blocks(events)
                for event in events:
                    if isinstance(event, DoneEvent):
                        done = event
                        continue
                    yield event
                scene.spoken.append(avatar)
                reply = beat.record.replies[-1]
                tree = session.chat.tree
                reply.entries = [i for i in tree.ids_since(mark) if tree.get(i).role == "assistant"]
                reply.stop_reason = stop = done.stop_reason
                rounds += done.rounds
                entry = done.entry_id or entry
                for key, value in done.usage.items():
                    usage[key] = usage.get(key, 0) + value
                if plan.start.record and stop != "error":
                    yield from session._after_reply(beat)
                if stop in ("error", "aborted"):
                    break
                if stop == "ended_by_tool":
                    if _handed(scene) is None:
                        break  # a fork handed to the user (the stage's ask): the round waits for them
                    stop = "stop"  # handing the turn on (next_speaker) is no way for a round to end
                queue = _next(scene, queue)
            beat.record.seconds = round(time.time() - beat.started, 2)
            final = DoneEvent(stop_reason=stop, rounds=rounds, entry_id=entry, usage=usage)
            if scene.spoken and plan.start.record and stop not in ("error",):
                yield from session._after_beat(beat, final)
            yield final
        finally:
            session._beat = None
            session._round_id = None
            try:
                if plan.start.before_release is not None:
                    plan.start.before_release()
                session._finish(beat, plan.start)
            finally:
                release()

    return run


def _handed(scene: GroupScene) -> str | None:
    """Whom the speaking model handed the turn to (read after its turn: a tool set it)."""
    return scene.handed_to


def _next(scene: GroupScene, queue: list[str]) -> list[str]:
    """Who speaks after the reply that just ended: whom the model handed the turn to, else the
    rest of the strategy's list."""
    handed = _handed(scene)
    if handed == "user":
        return []
    if handed is not None and handed in scene.members:
        return [handed]
    return queue


# -- opening and making group chats -------------------------------------------------------------


def _overrides(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k not in _GROUP_ONLY_KEYS}


def _speaker_choice(settings: dict[str, Any], folder: GroupFolder) -> str:
    value = settings.get("speaker_choice", settings.get("speakerChoice", "strategy"))
    if value not in SPEAKER_CHOICES:
        raise BadInput(f"speaker_choice 只能是 {' | '.join(SPEAKER_CHOICES)}，实际是 {value!r}",
                       path=folder.settings_file)  # fmt: skip
    return str(value)


def _tavern(settings: dict[str, Any]) -> dict[str, Any] | None:
    value = settings.get("tavern")
    return dict(value) if isinstance(value, dict) else None


def _members(app: PearApp, group_file: GroupFile) -> dict[str, Member]:
    """The group's members whose cards are in the data folder, by avatar, in the group's order."""
    members: dict[str, Member] = {}
    for avatar in group_file.members:
        if avatar in members:
            continue
        card = member_card(app.home, avatar)
        if card is None:
            continue  # SillyTavern skips a member whose character is gone
        loaded = card.load_card()
        obj = card_to_object(loaded, "v2")
        members[avatar] = Member(avatar, card, loaded.name or card.folder, obj if isinstance(obj, dict) else {})
    return members


def _group_settings(app: PearApp, folder: GroupFolder, card: CardFolder | None, options: ChatOptions) -> Settings:
    """config.toml, the card's 卡.json (a member's settings), the group's 群.json, the chat's options."""
    settings = load_settings(app.home.config_file)
    if card is not None:
        settings = card.effective_settings(settings)
    settings = merge_card_settings(settings, _overrides(folder.settings()), where=folder.settings_file)
    if options.preset:
        settings = replace(settings, preset=options.preset)
    if options.st_version:
        settings = replace(settings, st_version=check_st_version(options.st_version))
    return settings


def _member_env(session: GroupSession, member: Member, scene: GroupScene) -> GroupBeatEnv:
    base = session.env
    env = GroupBeatEnv(
        card=member.card,
        card_data=_card_object(member.card.load_card()),
        settings=_group_settings(session.app, session.folder, member.card, session._options),
        user_name=base.user_name,
        user_persona=base.user_persona,
        thinking=base.thinking,
        embedded=base.embedded,
        chat_id=base.chat_id,
        small_model=base.small_model,
        scene=scene,
        member=member.avatar,
    )
    env.story = session._story
    return env


def _mode(name: str | None) -> str:
    if name is None:
        return ""
    if name not in GROUP_MODES:
        raise BadInput(f"群聊的对话方式只能是 {'、'.join(GROUP_MODES)}，收到 {name!r}")
    return name


def _session(
    app: PearApp,
    folder: GroupFolder,
    chat: ChatFile,
    options: ChatOptions,
    resolved: ResolvedProvider | None = None,
) -> GroupSession:
    group_file = folder.read()
    members = _members(app, group_file)
    if not members:
        raise BadInput(
            f"群聊「{folder.folder}」没有一个成员的卡在数据文件夹里（no member card）", path=folder.group_file
        )
    group_json = folder.settings()
    settings = _group_settings(app, folder, None, options)
    header = chat.header
    recorded = _recorded_mode(chat)
    start = _mode(options.mode) or (recorded if recorded in GROUP_MODES else "") or _mode(header.get("mode") or None)
    start = start or (settings.mode if settings.mode in GROUP_MODES else "stage")
    resolved = resolved or app.resolve(settings, options.connection)
    thinking = chat_thinking(resolved, options)
    switched = recorded_persona(chat.tree.customs(PERSONA_ENTRY_TYPE))
    group_persona = group_json.get("persona")
    persona = choose_persona(
        app.home.personas_dir,
        options.persona or switched or str(header.get("persona") or ""),
        group_persona if isinstance(group_persona, str) else "",
        settings.user_name,
        settings.user_persona,
    )
    scene = GroupScene(
        Group.from_st(group_file.raw),
        members,
        title=group_file.name or folder.folder,
        speaker_choice=_speaker_choice(group_json, folder),
        tavern=_tavern(group_json),
    )
    first = next(iter(members.values()))
    env = GroupBeatEnv(
        card=first.card,
        card_data=_card_object(first.card.load_card()),
        settings=settings,
        user_name=persona.name,
        user_persona=persona.description,
        thinking=thinking,
        embedded=resolved.embedded,
        chat_id=chat.chat_id,
        small_model=resolved.small_model,
        scene=scene,
        member=first.avatar,
    )
    group_app = replace(app, modes=GROUP_MODES)
    session = GroupSession(group_app, first.card, chat, settings, resolved, start, env, group=folder, scene=scene)
    session._options = options
    session.start_mode = start
    session.story_memory = app.keeps_story_memory(settings, resolved)
    session._lock = ChatLock(lock_file_for(app.home, f"beat:group:{folder.folder}/{chat.chat_id}"), chat.chat_id)
    session.envs = {avatar: _member_env(session, member, scene) for avatar, member in members.items()}
    session._speak_as(first.avatar)
    return session


def _no_members(folder: GroupFolder) -> BadInput:
    return BadInput(f"群聊「{folder.folder}」的成员都没有卡在数据文件夹里（no member card）", path=folder.group_file)


def new_group_chat(app: PearApp, name: str, options: ChatOptions | None = None) -> GroupSession:
    """A new chat of the group, every member's greeting first (when greetings are on)."""
    options = options or ChatOptions()
    folder = open_group(app.home, name)
    group_file = folder.read()
    if not _members(app, group_file):
        raise BadInput(
            f"群聊「{folder.folder}」没有一个成员的卡在数据文件夹里（no member card）", path=folder.group_file
        )
    settings = _group_settings(app, folder, None, options)
    mode = _mode(options.mode) or _mode(str(folder.settings().get("mode") or "") or None)
    mode = mode or (settings.mode if settings.mode in GROUP_MODES else "stage")
    header: dict[str, Any] = {"group": folder.folder, "mode": mode}
    if options.persona:
        header["persona"] = options.persona
    resolved = app.resolve(settings, options.connection)  # a failing start writes nothing
    chat = ChatFile.create(folder.chats_dir, **header)
    session = _session(app, folder, chat, options, resolved)
    remember_chat(folder, chat.chat_id)
    if settings.greeting:
        session.add_greetings()
    return session


def open_group_chat(app: PearApp, name: str, chat_id: str, options: ChatOptions | None = None) -> GroupSession:
    folder = open_group(app.home, name)
    chat = ChatFile.open(folder.chats_dir, chat_id)
    session = _session(app, folder, chat, options or ChatOptions())
    with contextlib.suppress(ChatBusy):
        session._hold()()  # recover what a crash left, as a card's chat does
    return session


def latest_group_chat(app: PearApp, name: str, options: ChatOptions | None = None) -> GroupSession | None:
    folder = open_group(app.home, name)
    ids = folder.chat_ids()
    if not ids:
        return None
    latest = max(ids, key=lambda chat_id: (last_written(folder.chats_dir, chat_id), chat_id))
    return open_group_chat(app, folder.folder, latest, options)


def import_group_chat(app: PearApp, name: str, data: bytes, filename: str) -> GroupSession:
    """A SillyTavern group chat JSONL (``group chats/<id>.jsonl``) as a new chat of the group:
    every line kept (``original_avatar``, ``extra.gen_id``…), swipes as siblings."""
    folder = open_group(app.home, name)
    tavern = read_chat_jsonl(data, filename)
    if not _members(app, folder.read()):
        raise _no_members(folder)
    return _session(app, folder, import_chat_file(folder, tavern, filename), ChatOptions())


__all__ = [
    "GroupSession",
    "MemberView",
    "import_group_chat",
    "latest_group_chat",
    "new_group_chat",
    "open_group_chat",
]
