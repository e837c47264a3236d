"""A group chat as the service plays it: one user message, one beat, several speakers.

    chat = new_group_chat(app, "茶馆")                 # or open_group_chat / latest_group_chat
    beat = chat.play("send", "各位晚上好！")            # the group's strategy picks the speakers
    for item in beat: ...                             # a ``speaker`` event before each reply
    beat.result.replies                               # one Reply per speaker, with its ``speaker``
    chat.play("send", "/trigger 林月")                 # or play("send", speaker="林月"): that member answers

A :class:`GroupSession` is a chat (:class:`~peargarden.app.play.chat_core.ChatCore`: the reads and
edits every chat has) whose beat is a round (SillyTavern's ``generateGroupWrapper``, see
``docs/group-chats.md``), played by the one beat lifecycle (:mod:`.lifecycle`): who speaks comes from
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

import dataclasses
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec.structs import replace

from peargarden.agent.approvals import Approver
from peargarden.agent.events import AgentEvent, DoneEvent, SpeakerEvent, WarningEvent
from peargarden.errors import BadInput, NotFound
from peargarden.formats import card_to_object, format_send_date, read_chat_jsonl
from peargarden.formats.groups import GroupFile
from peargarden.modes.base import BeatEnv, PlayMode
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
from peargarden.sessions.entries import GREETING_TAG, Entry
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
from peargarden.workspace.chats import ChatFile, last_written, recorded_mode
from peargarden.workspace.config import Settings, load_settings, merge_card_settings
from peargarden.workspace.groups import GroupFolder, member_card, open_group
from peargarden.workspace.locking import lock_file_for

from ..library.groups import group_chat_jsonl, import_chat_file, remember_chat
from ..settings.connections import ResolvedProvider
from .beat import Beat
from .chat_core import ChatCore, recover_after_crash, user_message
from .chat_variables import ChatVariables
from .checkpoints import checkpoint_file
from .group_variables import group_variables, members_keep_variables
from .lifecycle import BeatRun, BeatStart, Speaker, check_action, continue_start, lifecycle
from .opening import (
    AppCore,
    ChatOptions,
    Player,
    chat_header,
    chat_mode,
    chat_player,
    greeting_text,
    with_options,
)
from .page_source import RowCard

if TYPE_CHECKING:
    from .chat_page import ChatView

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
    start: BeatStart
    speakers: list[str]
    round_id: Any


class GroupSession(ChatCore, kw_only=True):
    """A group chat (see the module docstring): the reads and edits every chat has
    (:class:`.chat_core.ChatCore`; ``env`` and ``card`` are the first member's) and the group's
    own: its members and their envs, its round, its page."""

    group: GroupFolder
    scene: GroupScene
    player: Player  # who plays the chat: every member's env is made from it
    options: ChatOptions
    envs: dict[str, GroupBeatEnv] = msgspec.field(default_factory=dict)
    # Who speaks next is drawn from this (NATURAL and POOLED rolls, impersonate's member).
    random: Callable[[], float] = msgspec.field(default_factory=live_random)
    # Members of group.json whose cards are not in the data folder (skipped, as SillyTavern does),
    # and those the last warning named (a round says so once, and again when the list changes).
    missing: list[str] = msgspec.field(default_factory=list)
    _missing_said: list[str] = msgspec.field(default_factory=list)

    # -- reading -----------------------------------------------------------------------------------

    @property
    def folder(self) -> GroupFolder:
        return self.group

    @property
    def char_name(self) -> str:
        """The group's name (a group chat has no one character)."""
        return self.scene.title or self.group.folder

    def roster(self) -> list[MemberView]:
        """The members whose cards are here, in the group's order."""
        scene = self.scene
        return [MemberView(a, m.card.folder, m.name, scene.group.is_muted(a)) for a, m in scene.members.items()]

    def view(self, last: int | None = None, before: int | None = None, *, since: int | None = None) -> ChatView:
        """The page model (``ChatSession.view``) with the group in ``extra["group"]``: its
        members, strategy and mode, and each reply's card (``row_cards``: entry id → card folder);
        the swipe arrows are the last reply's."""
        from .chat_page import chat_view  # the page model, on demand: a round never draws it

        page = chat_view(self.page_source(self.char_name, self._row_card), last, before, since, split_replies=True)
        cards = {row.id: card for row in page.rows if row.role == "assistant" and (card := self.card_of(row.id))}
        position, count = reply_swipes(self.chat.tree)
        swipe = replace(page.swipe, position=position, count=count, generate=count > 0)
        group = {**self.group_info(), "row_cards": cards}
        return dataclasses.replace(page, swipe=swipe, extra={**page.extra, "group": group})

    def _row_card(self, entry: Entry) -> RowCard | None:
        """The member who wrote *entry*, as its row's display scripts see it (``None``: not a member's)."""
        avatar = message_avatar(entry.message)
        member, env = self.scene.members.get(avatar), self.envs.get(avatar)
        return RowCard(member.card, env.card.data, member.name) if member is not None and env is not None else None

    def env_of(self, entry: Entry) -> BeatEnv:
        """The env of the member who wrote *entry* (the first member's for the user's)."""
        return self.envs.get(message_avatar(entry.message), self.env)

    def card_of(self, entry_id: str) -> str | None:
        """The card folder of the member who wrote the entry (``None``: the user, or a member gone)."""
        member = self.scene.members.get(message_avatar(self.chat.tree.get(entry_id).message))
        return member.card.folder if member is not None else None

    def group_info(self) -> dict[str, Any]:
        """The group as a front shows it: name, members, strategy, card joining, who picks speakers
        (read from its files again when no round runs: another window may have changed them)."""
        if not self.busy:
            self.refresh_group()
        scene = self.scene
        raw = self.group.read().raw
        return {
            "folder": self.group.folder,
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

    def variables(self) -> ChatVariables:
        """Every message's variables (per swipe) and the chat's: one line per reply, as the group's
        SillyTavern file numbers them."""
        return group_variables(self.chat.tree, self.chat.header, self._member_folders())

    def reload_card(self) -> None:
        """A member's card file was rewritten: every member's env reads its card again."""
        for env in self.envs.values():
            env.card = env.folder.load_card()

    def set_persona(self, name: str) -> None:
        """Play another persona from the next round on, with every member."""
        super().set_persona(name)
        for env in self.envs.values():
            env.user_name, env.user_persona = self.env.user_name, self.env.user_persona

    # -- greetings ---------------------------------------------------------------------------------

    def add_greetings(self) -> None:
        """A new group chat: every member's greeting in the group's order, muted members too (one
        of a member's greetings at random when it has alternates), each its own round, as
        SillyTavern opens a group."""
        now_ms = time.time() * 1000
        for avatar, member in self.scene.members.items():
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
            self.chat.append_message(
                {
                    "role": "assistant",
                    "content": greeting_text(self.env.user_name, self.settings, text, member.name),
                    "name": member.name,
                    "tags": [GREETING_TAG],
                    "st": group_fields(member.name, avatar, round_id, _send_date()),
                }
            )

    # -- playing -----------------------------------------------------------------------------------

    def play(
        self,
        action: str,
        text: str = "",
        *,
        step: int = 1,
        cancel: threading.Event | None = None,
        approver: Approver | None = None,
        speaker: str | None = None,
    ) -> Beat:
        """One round: ``send`` (*text*, may be empty: the members answer the chat as it is;
        ``/trigger NAME`` or *speaker* makes that member answer, muted or not), ``regenerate`` (the
        whole last round again), ``swipe`` / ``continue`` (the last reply, by its speaker),
        ``impersonate`` (the user's next line, with a random member as ``{{char}}``)."""
        check_action(action)
        trigger = _TRIGGER.match(text) if action == "send" else None
        if trigger is not None:
            speaker, text = (trigger.group(1) or "").strip(), ""
            if not speaker:
                raise BadInput("/trigger 需要成员名（/trigger NAME）")
        release = self.hold()
        try:
            self.refresh_group()  # under the chat's lock: never while a round of this chat runs
            self.scene.keeps_variables = members_keep_variables(self._member_envs())
            force = self.member_named(speaker) if speaker else None
            plan = self._plan(action, text, step, force)
        except BaseException:
            release()
            raise
        if plan is None:
            release()
            return Beat(action, None)
        first = self.scene.members[plan.speakers[0]].name if plan.speakers else self.char_name
        turns = _Round(self, plan, self.app.mode(self.mode).names_next_speaker)
        run = lifecycle(self, plan.start, turns, release)
        if (notice := self.missing_warning()) is not None:
            run = _told_first(notice, run)
        return Beat(action, run, speaker=first, cancel=cancel, approver=approver, release=release)

    def missing_warning(self) -> WarningEvent | None:
        """One line naming the members whose cards are gone, when it was not said for this list yet."""
        if self.missing == self._missing_said:
            return None
        self._missing_said = list(self.missing)
        if not self.missing:
            return None
        names = "、".join(f"「{avatar.rsplit('.', 1)[0]}」" for avatar in self.missing)
        return WarningEvent(
            message=f"群聊「{self.group.folder}」的成员 {names} 的卡不在数据文件夹里（删掉了？），轮到时跳过："
            f"重新导入这张卡，或用 pear group edit {self.group.folder} --remove 把它移出群聊"
        )

    def member_named(self, name: str) -> str:
        """A member's avatar by its name, card folder or avatar (``NotFound`` naming the members)."""
        scene = self.scene
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
        cast = self.scene.cast
        lines = spoken_lines(tree.messages())
        if action == "send":
            call = RoundCall("normal", user_input=text.strip())
            speakers = [force] if force else choose_speakers(cast, lines, call, self.random)
            if text.strip():
                self.chat.append_message(user_message(self.env, text, self.app.mode(self.mode)))
            return _RoundPlan(BeatStart("send", text, before), speakers, _new_round(lines))
        if action == "regenerate":
            self.chat.apply(plan_regenerate_round(tree))
            self.follow_branch()
            lines = spoken_lines(self.chat.tree.messages())
            speakers = [force] if force else choose_speakers(cast, lines, RoundCall("normal"), self.random)
            anchor = ops.last_user(self.chat.tree)
            words = str(anchor.message.get("content") or "") if anchor is not None else ""
            return _RoundPlan(BeatStart("send", words, before), speakers, _new_round(lines))
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
            return _RoundPlan(BeatStart("regenerate", "", before), speakers, round_id or _new_round(lines))
        if action == "continue":
            last = last_reply(tree)
            speakers = swipe_author(cast, lines, random=self.random)
            start = continue_start(self, last, before)
            return _RoundPlan(start, speakers[:1], message_round(last.message) or _new_round(lines))
        return _RoundPlan(BeatStart("impersonate", "", before, record=False), impersonate_pick(cast, self.random),
                          None)  # fmt: skip

    def _member_envs(self) -> list[GroupBeatEnv]:
        return [self.envs[avatar] for avatar in self.scene.members if avatar in self.envs]

    def _member_folders(self) -> list[tuple[CardFolder, Settings]]:
        return [(env.folder, env.settings) for env in self._member_envs()]

    def trims_replies(self) -> bool:
        """Whether a reply is cut where the model went on as another member (SillyTavern's
        ``disable_group_trimming`` off)."""
        tavern = self.scene.tavern or {}
        power_user = tavern.get("power_user")
        return not (isinstance(power_user, dict) and bool(power_user.get("disable_group_trimming")))

    # -- the group file ----------------------------------------------------------------------------

    def refresh_group(self) -> None:
        """Read ``group.json`` and ``群.json`` again (a member muted from another window, a new
        strategy): the next round follows them."""
        group_file = self.group.read()
        settings = self.group.settings()
        scene = self.scene
        if list(group_file.members) != list(scene.group.members):
            members = _members(self.app, group_file)
            self.missing = _missing(self.app, group_file)
            for avatar, member in members.items():
                if avatar not in self.envs:
                    self.envs[avatar] = _member_env(self, member)
            scene.members = members
        scene.group = Group.from_st(group_file.raw)
        scene.title = group_file.name or self.group.folder
        scene.speaker_choice = _speaker_choice(settings, self.group)
        scene.tavern = _tavern(settings)
        if scene.speaker not in scene.members:
            scene.speaker = next(iter(scene.members))


class _Round:
    """A group's turns (:class:`.lifecycle.Turns`): the speakers the plan chose, in order, or whom
    the speaking model hands the turn to (``next_speaker``); at most :data:`_REPLIES_PER_MEMBER`
    replies per member."""

    def __init__(self, chat: GroupSession, plan: _RoundPlan, names_next_speaker: bool) -> None:
        scene = self.scene = chat.scene
        scene.start_round()
        self.envs = chat.envs
        self.checkpoint = chat.checkpoint
        self.round_id = plan.round_id
        self.trims = chat.trims_replies()
        self.queue = list(plan.speakers)
        if scene.speaker_choice == "model" and names_next_speaker and plan.start.kind == "send":
            self.queue = self.queue[:1]  # the speaking model names the next one
        self.limit = max(1, _REPLIES_PER_MEMBER * len(scene.members))

    def next(self) -> Speaker | None:
        scene = self.scene
        if not self.queue or len(scene.spoken) >= self.limit:
            return None
        scene.speaker = self.queue.pop(0)
        scene.handed_to = None
        member = scene.current
        return Speaker(self.envs[scene.speaker], self.checkpoint, stamp=self._stamped,
                       event=SpeakerEvent(name=member.name, card=member.card.folder))  # fmt: skip

    def ended(self, done: DoneEvent) -> str:
        scene = self.scene
        scene.spoken.append(scene.speaker)
        stop = done.stop_reason
        if stop == "ended_by_tool":
            if scene.handed_to is None:
                self.queue = []  # a fork handed to the user (the stage's ask): the round waits for them
                return stop
            stop = "stop"  # handing the turn on (next_speaker) is no way for a round to end
        self.queue = _next(scene, self.queue)
        return stop

    def _stamped(self, message: dict[str, Any]) -> dict[str, Any]:
        """A reply as the group keeps it: its speaker's name, SillyTavern's group fields (who spoke,
        the round), and cut where the model went on as another member (``cleanGroupMessage``)."""
        if message.get("role") != "assistant":
            return message
        scene = self.scene
        member = scene.current
        content = str(message.get("content") or "")
        if content and self.trims:
            content = trim_reply(content, scene.cast, member.name)
        st = group_fields(member.name, scene.speaker, self.round_id, _send_date())
        return {**message, "content": content, "name": member.name, "st": st}


def _send_date() -> str:
    return format_send_date(datetime.now(UTC))


def _new_round(lines: list[dict[str, Any]]) -> int:
    clocked = [line for line in lines if not _beyond_clock(line)]
    return next_round_id(clocked, time.time() * 1000)


def _beyond_clock(line: dict[str, Any]) -> bool:
    extra = line.get("extra")
    value = extra.get("gen_id") if isinstance(extra, dict) else None
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > _CLOCK_IDS


def _next(scene: GroupScene, queue: list[str]) -> list[str]:
    """Who speaks after the reply that just ended: whom the model handed the turn to, else the
    rest of the strategy's list."""
    handed = scene.handed_to
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


def _members(app: AppCore, group_file: GroupFile) -> dict[str, Member]:
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


def _missing(app: AppCore, group_file: GroupFile) -> list[str]:
    """The members' avatars that no card in the data folder stands for, in the group's order."""
    return list(dict.fromkeys(a for a in group_file.members if member_card(app.home, a) is None))


def _told_first(notice: WarningEvent, run: BeatRun) -> BeatRun:
    """The round's events after *notice* (said as the round starts)."""

    def told(beat: Beat, approver: Approver | None) -> Iterator[AgentEvent]:
        yield notice
        yield from run(beat, approver)

    return told


def _group_settings(app: AppCore, folder: GroupFolder, card: CardFolder | None, options: ChatOptions) -> Settings:
    """config.toml, the card's 卡.json (a member's settings), the group's 群.json, the chat's options."""
    settings = load_settings(app.home.config_file)
    if card is not None:
        settings = card.effective_settings(settings)
    settings = merge_card_settings(settings, _overrides(folder.settings()), where=folder.settings_file)
    return with_options(settings, options)


def _member_env(session: GroupSession, member: Member) -> GroupBeatEnv:
    """A member's env: its card, its settings (its 卡.json under the group's 群.json), the scene."""
    settings = _group_settings(session.app, session.group, member.card, session.options)
    env = session.player.env(GroupBeatEnv, member.card, settings, scene=session.scene, member=member.avatar)
    env.story = session.story_of(env)
    return env


def _group_table(app: AppCore) -> Mapping[str, PlayMode]:
    """The app's group modes (the standard table unless a test gave its own)."""
    return app.group_modes if app.group_modes is not None else GROUP_MODES


def _group_mode(table: Mapping[str, PlayMode]) -> Callable[[str], None]:
    def check(name: str) -> None:
        if name not in table:
            raise BadInput(f"群聊的对话方式只能是 {'、'.join(table)}，收到 {name!r}")

    return check


def _session(
    app: AppCore,
    folder: GroupFolder,
    chat: ChatFile,
    options: ChatOptions,
    resolved: ResolvedProvider | None = None,
) -> GroupSession:
    """The opening recipe (:mod:`.opening`) for a group's chat: one env per member."""
    group_file = folder.read()
    members = _members(app, group_file)
    if not members:
        raise _no_members(folder)
    group_json = folder.settings()
    settings = _group_settings(app, folder, None, options)
    table = _group_table(app)
    mode = chat_mode(table, _group_mode(table), asked=options.mode, recorded=recorded_mode(chat),
                     named=chat.header.get("mode"), configured=settings.mode)  # fmt: skip
    resolved = resolved or app.resolve(settings, options.connection)
    scene = GroupScene(
        Group.from_st(group_file.raw),
        members,
        title=group_file.name or folder.folder,
        speaker_choice=_speaker_choice(group_json, folder),
        tavern=_tavern(group_json),
    )
    first = next(iter(members.values()))
    scene.speaker = first.avatar
    player = chat_player(app.home, chat, options, group_json.get("persona"), settings, resolved)
    session = GroupSession(
        app.with_modes(table),
        first.card,
        chat,
        settings,
        resolved,
        mode,
        player.env(GroupBeatEnv, first.card, settings, scene=scene, member=first.avatar),
        lock_file_for(app.home, f"beat:group:{folder.folder}/{chat.chat_id}"),
        checkpoint_file(app.home, f"group:{folder.folder}", chat.chat_id),
        start_mode=mode,
        story_memory=app.keeps_story_memory(settings, resolved),
        group=folder,
        scene=scene,
        player=player,
        options=options,
    )
    session.envs = {avatar: _member_env(session, member) for avatar, member in members.items()}
    session.env = session.envs[first.avatar]
    session.missing = _missing(app, group_file)
    return session


def _no_members(folder: GroupFolder) -> BadInput:
    return BadInput(f"群聊「{folder.folder}」没有一个成员的卡在数据文件夹里（no member card）", path=folder.group_file)


def new_group_chat(app: AppCore, name: str, options: ChatOptions | None = None) -> GroupSession:
    """A new chat of the group, every member's greeting first (when greetings are on)."""
    options = options or ChatOptions()
    folder = open_group(app.home, name)
    if not _members(app, folder.read()):
        raise _no_members(folder)
    settings = _group_settings(app, folder, None, options)
    table = _group_table(app)
    mode = chat_mode(table, _group_mode(table), asked=options.mode, named=folder.settings().get("mode"),
                     configured=settings.mode)  # fmt: skip
    header = chat_header("group", folder.folder, mode, options)
    resolved = app.resolve(settings, options.connection)  # a failing start writes nothing
    chat = ChatFile.create(folder.chats_dir, **header)
    session = _session(app, folder, chat, options, resolved)
    remember_chat(folder, chat.chat_id)
    if settings.greeting:
        session.add_greetings()
    return session


def open_group_chat(app: AppCore, name: str, chat_id: str, options: ChatOptions | None = None) -> GroupSession:
    folder = open_group(app.home, name)
    session = _session(app, folder, ChatFile.open(folder.chats_dir, chat_id), options or ChatOptions())
    recover_after_crash(session)  # what a crash left, as a card's chat does
    return session


def latest_group_chat(app: AppCore, name: str, options: ChatOptions | None = None) -> GroupSession | None:
    folder = open_group(app.home, name)
    ids = folder.chat_ids()
    if not ids:
        return None
    latest = max(ids, key=lambda chat_id: (last_written(folder.chats_dir, chat_id), chat_id))
    return open_group_chat(app, folder.folder, latest, options)


def import_group_chat(app: AppCore, name: str, data: bytes, filename: str) -> GroupSession:
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
