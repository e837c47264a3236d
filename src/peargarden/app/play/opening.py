"""Opening a chat, one recipe for a card's chat and a group's: the app's parts a chat uses, the
chat's mode, the session header, the persona and the :class:`~peargarden.modes.base.BeatEnv` its
speakers play with.

    app = AppCore(home)                      # PearApp (app.play.service) adds the card's chats
    mode = chat_mode(app.modes, app.mode, asked=options.mode, recorded=..., named=..., configured=...)
    header = chat_header("card", card.folder, mode, options)
    player = chat_player(app.home, chat, options, owner_persona, settings, resolved)
    env = player.env(BeatEnv, card_folder, settings)  # a group: one GroupBeatEnv per member

Nothing here writes; the services (:mod:`.service`, :mod:`.group_session`) make the chat folder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgspec
from msgspec.structs import replace

from peargarden.agent.approvals import CardGrantRecorder, Judge
from peargarden.agent.result import SentRequest
from peargarden.agent.thinking import parse_level
from peargarden.errors import BadInput
from peargarden.modes.base import BeatEnv, PlayMode
from peargarden.modes.table import MODES
from peargarden.modes.table import STAGE as STAGE
from peargarden.modes.table import TAVERN as TAVERN
from peargarden.providers.base import ThinkingLevel
from peargarden.tavern.version import for_version
from peargarden.text.macro_dispatch import expand
from peargarden.text.macros import MacroEnv, Variables
from peargarden.text.rolls import live_random
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.chats import ChatFile
from peargarden.workspace.config import LOCAL_PROVIDER, Settings, check_st_version, load_settings
from peargarden.workspace.home import Home

from ..library.personas import PERSONA_ENTRY_TYPE, choose_persona, recorded_persona
from ..settings.connections import Connection, ResolvedProvider, resolve_provider
from ..settings.stored_keys import with_stored_key

DEFAULT_CARD = "青梧"

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


class AppCore(msgspec.Struct):
    """What every chat of the app uses: the data folder, how models are resolved, the request hooks,
    the sandbox's judge, story memory and the mode table.  ``PearApp`` adds the card's chats."""

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
    # A group chat's ways to play; None: the standard group table (loaded with the first group chat).
    group_modes: Mapping[str, PlayMode] | None = None

    def mode(self, name: str) -> PlayMode:
        """The mode called *name*; unknown names fail with the list of known ones."""
        try:
            return self.modes[name]
        except KeyError:
            raise BadInput(f"未知的对话方式 {name!r}（可用：{'、'.join(self.modes)}）") from None

    def with_modes(self, modes: Mapping[str, PlayMode]) -> AppCore:
        """The same app over another mode table (a group's)."""
        return replace(self, modes=modes)

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
        return with_options(card.effective_settings(load_settings(self.home.config_file)), options)


def with_options(settings: Settings, options: ChatOptions | None) -> Settings:
    """*settings* with a chat's own preset and SillyTavern release on top."""
    if options is not None and options.preset:
        settings = replace(settings, preset=options.preset)
    if options is not None and options.st_version:
        settings = replace(settings, st_version=check_st_version(options.st_version))
    return settings


def chat_mode(
    modes: Mapping[str, object],
    check: Callable[[str], object],
    *,
    asked: str | None = None,
    recorded: str = "",
    named: object = None,
    configured: str = "",
) -> str:
    """The mode a chat plays in: the front's (*asked*), else the one recorded on its branch, else
    the one its header (or its group) names, else config.toml's, else the table's first.  An asked
    or named mode the table lacks fails (*check* raises, naming the known ones); a recorded or
    configured one is passed over (a group has no work mode)."""
    if asked:
        check(asked)
        return asked
    if recorded in modes:
        return recorded
    if named:
        check(str(named))
        return str(named)
    if configured in modes:
        return configured
    return next(iter(modes))


def chat_header(kind: str, owner: str, mode: str, options: ChatOptions) -> dict[str, Any]:
    """A new chat's session header: whose it is (``card`` or ``group``: the folder), its mode, and
    the persona the front chose."""
    header: dict[str, Any] = {kind: owner, "mode": mode}
    if options.persona:
        header["persona"] = options.persona
    return header


def chat_thinking(resolved: ResolvedProvider, options: ChatOptions) -> ThinkingLevel:
    """The thinking level a chat plays at: the front's, else the connection's, else ``medium``; the
    embedded model cannot think (the stage then sends lore as bodies)."""
    if resolved.embedded:
        return "off"
    return parse_level(options.thinking or resolved.thinking or "medium")


# The standard table's modes by name, for the fronts' flags, help and checks (they name no mode).
MODE_NAMES: tuple[str, ...] = tuple(MODES)

_Env = TypeVar("_Env", bound=BeatEnv)


class Player(msgspec.Struct, frozen=True):
    """Who plays a chat and with what: the persona, the thinking level, the model's traits.  Every
    speaker's env of the chat is made from it (:meth:`env`)."""

    chat_id: str
    user_name: str
    user_persona: str
    thinking: ThinkingLevel
    embedded: bool
    small_model: bool

    def env(self, kind: type[_Env], folder: CardFolder, settings: Settings, **extra: Any) -> _Env:
        """The env (a *kind*) a speaker of the chat plays with: *folder*'s card (read now),
        *settings*, each env its own per-chat cache; *extra*: a subclass's fields (a group member's)."""
        return kind(
            folder=folder,
            card=folder.load_card(),
            settings=settings,
            user_name=self.user_name,
            user_persona=self.user_persona,
            thinking=self.thinking,
            embedded=self.embedded,
            chat_id=self.chat_id,
            small_model=self.small_model,
            **extra,
        )


def chat_player(
    home: Home,
    chat: ChatFile,
    options: ChatOptions,
    owner_persona: object,
    settings: Settings,
    resolved: ResolvedProvider,
) -> Player:
    """Who plays *chat*: the persona the front chose, else the one switched to on the branch, else
    the header's, else the card's (or group's) own *owner_persona*, else config.toml's user."""
    switched = recorded_persona(chat.tree.customs(PERSONA_ENTRY_TYPE))
    persona = choose_persona(
        home.personas_dir,
        options.persona or switched or str(chat.header.get("persona") or ""),
        owner_persona if isinstance(owner_persona, str) else "",
        settings.user_name,
        settings.user_persona,
    )
    return Player(
        chat.chat_id,
        persona.name,
        persona.description,
        chat_thinking(resolved, options),
        resolved.embedded,
        resolved.small_model,
    )


def greeting_text(user_name: str, settings: Settings, text: str, name: str) -> str:
    """A greeting as the chat keeps it: SillyTavern substitutes its macros when it adds the first
    message (``{{user}}``, ``{{char}}``, the legacy ``<USER>``/``<BOT>``, rolls …), with the
    macro engine of the card's SillyTavern release."""
    macros = MacroEnv(user=user_name, char=name, card=None, variables=Variables(), random=live_random())
    new_engine = for_version(settings.st_version).new_macro_engine
    return expand(text, macros, engine="new" if new_engine else "legacy")
