"""What every mode shares: the beat's environment, the setup signature and a mode's row in the table.

A :data:`ModeSetup` receives the :class:`BeatEnv` of a beat and returns the request builder and the
tools.  A :class:`PlayMode` is one row of the mode table the service is given
(:data:`peargarden.modes.table.MODES`, or a test's own): its setup, the tags its messages carry, the
tool mode the loop and the sandbox see, and the steps the service runs around a beat — ``prepare``
before it, ``story`` while its requests are built, ``after_beat`` once its reply is complete.  The
service names no mode: what a mode does around a beat is in its row.

The steps see the chat through a :class:`BranchView` (pi's read-only session manager: the active
branch, who plays, which model) and call the side model through a :class:`SideCall`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

from peargarden.agent.loop import RequestBuilder
from peargarden.agent.result import BeatResult
from peargarden.agent.tools import Mode, Tool
from peargarden.formats import Card
from peargarden.providers.base import Provider, ThinkingLevel
from peargarden.sessions.entries import Entry
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.chats import MODE_ENTRY_TYPE as CHAT_MODE_ENTRY
from peargarden.workspace.config import Settings

if TYPE_CHECKING:
    # The stage's story view is named in annotations only: a tavern chat never loads the stage.
    from peargarden.stage.memory.view import StoryView


class BeatEnv(msgspec.Struct):
    """Everything a mode may need to set up a beat."""

    folder: CardFolder  # the card's folder (its files, 卡.json, books, project)
    card: Card  # the card itself, as read when the chat opened (or the card was last rewritten)
    settings: Settings  # global settings with the card's 卡.json on top
    user_name: str
    user_persona: str
    thinking: ThinkingLevel
    embedded: bool
    chat_id: str
    # The main model is small (a local GGUF under a few billion parameters): the stage sends its
    # compact profile (peargarden.stage.compact).  Decided from the model's header, not its name.
    small_model: bool = False
    # A dry run's random rolls, fixed (world-info probability, ``{{random}}``); None: live.
    seed: int | None = None
    # Per-chat cache a mode may keep between beats (e.g. a lore corpus); cleared when the chat closes.
    cache: dict[str, Any] = msgspec.field(default_factory=dict)
    cache_lock: threading.Lock = msgspec.field(default_factory=threading.Lock)

    @property
    def char_name(self) -> str:
        """The card's character name (the folder name when the card has none)."""
        return self.card.name or self.folder.folder

    @property
    def group_chat(self) -> bool:
        """Whether the chat is a group's (several speakers' replies follow one another)."""
        return False

    @property
    def shares_variables(self) -> bool:
        """A group chat where a member's card keeps MVU variables: whoever speaks may change them."""
        return False

    # The chat's story memory for a beat (summary, scene notes, budget), from the mode's ``story``
    # step over the chat's branch; set by the service, read by the stage builder.
    story: Callable[[], StoryView | None] | None = None


ModeSetup = Callable[[BeatEnv], tuple[RequestBuilder, list[Tool]]]

_Kept = TypeVar("_Kept")


def chat_memo(env: BeatEnv, key: str, kind: type[_Kept], make: Callable[[], _Kept] | None = None) -> _Kept:
    """The chat's one *kind* object under *key* in the env's per-chat cache (``BeatEnv.cache``),
    made by *make* (default ``kind()``) on first use."""
    with env.cache_lock:
        value = env.cache.get(key)
        if not isinstance(value, kind):
            value = env.cache[key] = (make or kind)()
        return value


# The chat's side model (provider, model name), built only when a step needs it.
SideModel = Callable[[], tuple[Provider, str]]

# What a mode writes before a recorded beat (setup itself only reads, so a preview writes nothing):
# it yields one line per thing it does, which the service passes on as events.
ModePrepare = Callable[[BeatEnv, SideModel], Iterator[str]]


class TreeReader(Protocol):
    """The reading half of a session tree (``peargarden.sessions.SessionTree``)."""

    @property
    def leaf(self) -> str | None: ...

    def messages(self) -> list[Entry]: ...

    def customs(self, custom_type: str | None = None) -> list[Entry]: ...

    def path(self) -> list[Entry]: ...

    def siblings(self, entry_id: str) -> list[Entry]: ...


class BranchView(msgspec.Struct, frozen=True):
    """A chat as a mode's steps see it: the active branch to read, who plays and with which model.

    Its one write is a custom entry at the leaf (pi's ``appendEntry``): the state a step keeps with
    the branch (scene notes, summaries, variables) follows swipes, rewinds and branches.
    """

    chat_id: str
    env: BeatEnv
    model: str  # the chat's main model (its tokenizer counts the story budget)
    tree: TreeReader
    append_custom: Callable[[str, Any], object]
    config_file: Path  # config.toml, for settings a step reads itself (``[story]``)
    # Whether this chat keeps story memory (the service decides: a side model worth asking).
    story_memory: bool = False
    mode: str = ""

    @property
    def folder(self) -> CardFolder:
        """The card's folder (a group's speaker's)."""
        return self.env.folder

    @property
    def user_name(self) -> str:
        return self.env.user_name

    @property
    def char_name(self) -> str:
        return self.env.char_name


class SideCall(Protocol):
    """The chat's side model for one step: system and user text in, the reply's text out (a
    ``PearError`` on failure); *purpose* names the call in the beat's record of requests.
    ``stopped()``: the user stopped the beat, so a step should not start another call."""

    def __call__(self, system: str, user: str, max_tokens: int, *, purpose: str = "side") -> str: ...

    def stopped(self) -> bool: ...


# The mode's story memory for a beat, read from the branch (the stage: summary, scene notes, budget).
ModeStory = Callable[[BranchView], "StoryView | None"]

# What a mode does once a recorded beat's reply is complete (the stage: scene notes and compaction):
# ``None`` when nothing is due (decided at once, so a front is told only when work runs), else the
# work, run as it is iterated, yielding one warning per thing the user should know.  A failure
# costs the beat nothing: the service runs every step through one runner that turns any exception,
# at the call or in the work, into one warning naming the step (``app.play.mode_steps``).
AfterBeat = Callable[[BranchView, SideCall, BeatResult], Iterator[str] | None]


class PlayMode(msgspec.Struct, frozen=True):
    """One way to play, as a row of the mode table."""

    setup: ModeSetup
    # The sandbox and the loop know three kinds of beat: a story beat on stage, SillyTavern's one
    # generation, and work on the card.
    tool_mode: Mode = "stage"
    # Tags every message recorded in this mode carries (work-mode messages stay out of the story).
    tags: tuple[str, ...] = ()
    # Fields the user's message carries when it is written in this mode (tavern: the ``extra``
    # SillyTavern gives a typed message, which a card's scripts read).
    user_fields: dict[str, Any] | None = None
    prepare: ModePrepare | None = None
    story: ModeStory | None = None
    after_beat: AfterBeat | None = None
    # A group round's step after each speaker's reply, before the next speaker starts (MVU handles
    # that reply); its warnings are passed on.  ``after_beat`` still runs once, after the round.
    after_reply: AfterBeat | None = None
    # The step that writes a reply's variables record (MVU), also run on its own (``after_beat`` or
    # ``after_reply`` run it within a beat): for a reply saved by a process that died before the
    # record was written, the service runs it when the chat is next claimed, with no side model.
    variables: AfterBeat | None = None
    # Whether MVU's ``<UpdateVariable>`` blocks stay out of the stream too: the stage changes
    # variables through its tool and strips a written block after the reply, so none may show live.
    hides_update_blocks: bool = False
    # Whether the speaking model may name who speaks next in a group round whose group lets the
    # model choose (the group stage's ``next_speaker`` tool): the round then starts with one speaker.
    names_next_speaker: bool = False


class ModeTable(Mapping[str, PlayMode]):
    """A mode table whose rows are made the first time they are asked for.

    Each name maps to a function that imports its mode and returns its row: a chat loads only the
    modes it plays in (a stage chat never loads SillyTavern's assembly, about 40 modules, nor the
    group modes).  ``name in table``, iteration and ``len`` name the modes without loading any."""

    def __init__(self, loaders: Mapping[str, Callable[[], PlayMode]]) -> None:
        self._loaders = dict(loaders)
        self._made: dict[str, PlayMode] = {}

    def __getitem__(self, name: str) -> PlayMode:
        made = self._made.get(name)
        if made is None:
            # Two threads asking at once may both make the row: equal rows, one of them kept.
            made = self._made[name] = self._loaders[name]()
        return made

    def __contains__(self, name: object) -> bool:
        return name in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


# The custom entry that records a mode change on the branch (the latest on the branch wins).
MODE_ENTRY_TYPE = CHAT_MODE_ENTRY  # kept by the session store (workspace.chats), read by chat lists
